"""A spam filter's token store: its per-term counts in SQLite, read by lookup, as bogofilter
reads its word list.

Loading a :class:`~bayeskit.text.SpamFilter` from its model file imports numpy, scipy and
scikit-learn and rebuilds every array: about two seconds of CPU for one message, while a mail
delivery agent runs the filter once per message. The store beside the model file
(``MODEL.tokens.sqlite``, :func:`store_path`) holds what scoring one message needs:

* a ``tokens`` table, one row per term of the model's vocabulary with the (weighted) count of
  each class, ``feature_count_`` (under ``output="binary"`` the messages of each class holding
  the term);
* a ``meta`` table: the analyzer's settings, the class counts and log priors, the count
  model's smoothing (its per-class denominators and pseudo-count rule), the calibration
  ``(a, b)``, the cutoffs and the scoring's parameters — and the *stamp* of the model file the
  store was written for (its inode, size and modification time in nanoseconds).

:func:`score_message` reads the stamp and the rows of the message's terms
(``SELECT … WHERE term IN (…)``) in one read transaction and computes the filter's own score
in pure Python: the count model's log-odds ``Σ_j log θ_spam,j - log θ_ham,j`` plus the log
priors (``θ_cj = (N_cj + a_j) / (N_c + Σ_k a_k)``), or Fisher's combining of Robinson's
``f(w)`` (:mod:`bayeskit.text.fisher`), then the calibration and the cutoffs. The terms are
those of the model's own analyzer (:func:`bayeskit.text.analyze.make_analyzer`, the function
``transform`` uses), so the verdict and the score are the model's (tested on every message of
the SpamAssassin corpus, to 1e-9).

A store is used only when its stamp is the model file's: a model file written any other way
(``bayeskit train``, a copy) makes it stale, and a stale, missing or unreadable store, or a
filter whose settings it cannot score exactly (another count model, tf-idf weights…) raises
:class:`DeclinedError`: the caller scores with the full model. A file of another layout (its
schema is checked against :data:`_TABLES`), settings that are no JSON object, or a looked-up
row without two finite non-negative counts raise :class:`BrokenStoreError`, and a write throws
such a store away (:func:`broken`). A row altered in place into other plausible values is not
detected: SQLite keeps no checksums, and checking every row would cost the lookup.

Written whenever ``bayeskit filter`` writes the model (:func:`updating`), in one SQLite
transaction committed after the new model file is in place: a process killed before the
commit leaves the old stamp, so the store is stale (and rebuilt), never silently wrong.

This module imports neither numpy nor scikit-learn until a store is written.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

from ..errors import ModelFileError
from . import fisher

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see bayeskit/__init__)
if TYPE_CHECKING:
    from typing import Any

#: The store's file beside the model file.
SUFFIX = ".tokens.sqlite"
#: The layout of the tables (a store of another layout is stale).
FORMAT = 1
#: Terms looked up per query (SQLite takes up to 32,766 parameters since 3.32).
_CHUNK = 5000
#: How long a scorer waits for a writer's lock (seconds) before it declines, and the full
#: model scores the message: an MDA waits for the filter, and a commit takes milliseconds, so
#: a longer wait means another program holds the store (it was 30 s, twice for a rebuild).
_READ_TIMEOUT = 2.0
#: How long a writer waits (seconds): a learner's store is only a copy of its model, left
#: stale when it cannot be written.
_WRITE_TIMEOUT = 5.0


class DeclinedError(Exception):
    """The store cannot score this message exactly (missing, stale, another kind of filter):
    score it with the full model."""


class BrokenStoreError(DeclinedError, ModelFileError):
    """The store's file is no token store of this layout: tables of another layout (another
    program's file, an older store), a ``meta`` table whose settings are not a JSON object,
    a looked-up row that holds no counts. Declined, and thrown away by the next write
    (:func:`broken`): it is only a copy of what the model file holds."""


def store_path(model_path: str | os.PathLike[str]) -> str:
    """Where the token store of the model file ``model_path`` lives."""
    return f"{os.fspath(model_path)}{SUFFIX}"


def model_stamp(path: str | os.PathLike[str]) -> str:
    """The identity of a model file: inode, size and modification time (ns). An atomic
    replace gives the new file a new inode; a rewrite in place changes the time."""
    st = os.stat(path)
    return f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}"


# ------------------------------------------------------------------ reading (pure Python)
def _analyzer(settings: dict[str, Any]) -> Callable[[Any], list[str]]:
    from .analyze import make_analyzer

    return make_analyzer(
        analyzer=settings["analyzer"],
        lowercase=settings["lowercase"],
        token_pattern=settings["token_pattern"],
        ngram_range=tuple(settings["ngram_range"]),
        stop_words=frozenset(settings["stop_words"]),
        subject_in_text=settings["subject_in_text"],
        encoding=settings.get("encoding", "utf-8"),
    )


#: The store's tables, as SQLite keeps their definitions (``sqlite_master.sql``): a file whose
#: tables are defined any other way is another layout (:func:`_has_tables`).
_TABLES = {
    "meta": "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "tokens": "CREATE TABLE tokens "
    "(term TEXT PRIMARY KEY, ham REAL NOT NULL, spam REAL NOT NULL) WITHOUT ROWID",
}


def _has_tables(db: sqlite3.Connection) -> bool:
    """Whether the store's file holds the store's tables (False: it holds none, a new file);
    raises :class:`BrokenStoreError` for a file with anything else in it (tables named so but
    of another layout, such as one without the keys, whose rows a write would duplicate;
    other tables, indexes, views or triggers): SQLite's own objects aside, its schema must be
    :data:`_TABLES` exactly."""
    found = db.execute(
        "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite!_%' ESCAPE '!'"
    ).fetchall()
    if not found:
        return False
    if sorted(found) != sorted(("table", name, sql) for name, sql in _TABLES.items()):
        names = ", ".join(sorted(f"{kind} {name}" for kind, name, _ in found))
        raise BrokenStoreError(f"the token store's file is of another layout ({names:.200})")
    return True


def _meta_of(db: sqlite3.Connection) -> dict[str, str]:
    """The ``meta`` table's keys and values (text, each); raises :class:`BrokenStoreError`."""
    rows = db.execute("SELECT key, value FROM meta").fetchall()
    if not all(isinstance(key, str) and isinstance(value, str) for key, value in rows):
        raise BrokenStoreError("the token store's meta table holds values that are not text")
    return dict(rows)


def _settings_of(meta: dict[str, str]) -> dict[str, Any]:
    """The store's settings (a JSON object in ``meta``); raises :class:`BrokenStoreError` for
    none, or for text that is not a JSON object (damaged, written by another program)."""
    try:
        settings = json.loads(meta["settings"])
    except (KeyError, ValueError, RecursionError):
        settings = None
    if not isinstance(settings, dict):
        raise BrokenStoreError("the token store's settings are missing or not a JSON object")
    return settings


def _read_meta(db: sqlite3.Connection, model_path: str) -> dict[str, Any]:
    if not _has_tables(db):
        raise DeclinedError("the token store is empty (being written for the first time?)")
    meta = _meta_of(db)
    if meta.get("format") != str(FORMAT):
        raise DeclinedError("the token store has another format")
    if meta.get("stamp") != model_stamp(model_path):
        raise DeclinedError("the token store is stale (the model file was written without it)")
    settings = _settings_of(meta)
    if not settings.get("supported"):
        raise DeclinedError(f"the token store cannot score this filter ({settings.get('why')})")
    return settings


def _lookup(db: sqlite3.Connection, terms: list[str]) -> list[tuple[str, float, float]]:
    """The rows of ``terms``; raises :class:`BrokenStoreError` for a row whose counts are not
    finite non-negative numbers (what a row can be checked for without a checksum: the rows
    a message looks up, no others)."""
    rows: list[tuple[str, float, float]] = []
    for start in range(0, len(terms), _CHUNK):
        chunk = terms[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        rows += db.execute(
            f"SELECT term, ham, spam FROM tokens WHERE term IN ({marks})",
            chunk,
        ).fetchall()
    for term, ham, spam in rows:
        counts = type(ham) is float and type(spam) is float
        if not (counts and 0.0 <= ham < math.inf and 0.0 <= spam < math.inf):
            raise BrokenStoreError(f"the token store's row of {term!r:.40} holds no counts")
    return rows


def read_terms(model_path: str | os.PathLike[str], raw: bytes) -> dict[str, Any]:
    """What the store knows of one message: ``{"terms": {term: weight}, "rows": [(term,
    ham, spam), …] (sorted), "settings": …}``; raises :class:`DeclinedError`."""
    path = store_path(model_path)
    if not os.path.exists(path):
        raise DeclinedError("no token store beside the model file")
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=_READ_TIMEOUT)
    except sqlite3.Error as exc:
        raise DeclinedError(f"the token store cannot be opened ({exc})") from None
    try:
        db.execute("BEGIN")  # the stamp and the rows from one snapshot
        settings = _read_meta(db, os.fspath(model_path))
        weights = count_terms(_analyzer(settings), settings, raw)
        rows = sorted(_lookup(db, list(weights)))
    except sqlite3.Error as exc:
        raise DeclinedError(f"the token store cannot be read ({exc})") from None
    finally:
        db.close()
    return {"terms": weights, "rows": rows, "settings": settings}


def count_terms(
    analyze: Callable[[Any], list[str]], settings: dict[str, Any], doc: str | bytes
) -> dict[str, float]:
    """The terms of one message (``doc``: raw bytes, or text) and their weights, as the
    model's vectorizer counts them; ``analyze`` is :func:`_analyzer` of ``settings``."""
    if settings["analyzer"] == "word":  # the vectorizer decodes before it analyzes
        from .analyze import decode

        found = analyze(decode(doc, encoding=settings["encoding"]))
    else:  # "auto" and "email" read the raw message (or the text) themselves
        found = analyze(doc)
    if settings["binary"]:
        return dict.fromkeys(found, 1.0)
    weights: dict[str, float] = {}
    for term in found:
        weights[term] = weights.get(term, 0.0) + 1.0
    return weights


class TokenTable:
    """A filter's token store held in memory: the rows :func:`snapshot` gives, by term, and
    the store's settings, scored by the same arithmetic as :func:`score_message` (so a
    service answers as the store beside the model file does: the same terms, the same sums
    in the same order). Built once per fitted filter (a dict over its vocabulary; each
    term's :func:`term_scores` kept once a message has held it); raises
    :class:`DeclinedError` for a filter the store cannot score exactly."""

    def __init__(self, model: Any) -> None:
        settings, terms, counts = snapshot(model)
        if not settings["supported"]:
            raise DeclinedError(f"the token store cannot score this filter ({settings['why']})")
        self.settings = settings
        self.analyze = _analyzer(settings)
        self.rows: dict[str, tuple[float, float]] = dict(
            zip(terms.tolist(), zip(*counts.tolist(), strict=True), strict=True)
        )
        # Threads may fill it at once: each writes the same value for a term.
        self._scored: dict[str, tuple[float, float, float]] = {}

    def score(self, doc: str | bytes) -> tuple[float, str]:
        """``(P(spam|x), verdict)`` of one message (raw bytes, or text)."""
        weights = count_terms(self.analyze, self.settings, doc)
        get, known = self.rows.get, self._scored
        rows: list[tuple[str, float, float]] = []
        scored: list[tuple[float, float, float]] = []
        for term in sorted(weights):  # the store's rows come sorted by term
            row = get(term)
            if row is None:
                continue
            rows.append((term, *row))
            found = known.get(term)
            if found is None:
                found = known[term] = term_scores(*row, self.settings)
            scored.append(found)
        p = spam_probability(
            {"terms": weights, "rows": rows, "scored": scored, "settings": self.settings}
        )
        return p, verdict(p, self.settings)


def _log_theta(count: float, pooled: float, c: int, s: dict[str, Any]) -> float:
    """``log θ_cj`` of a term with class count ``count`` and pooled count ``pooled``, as the
    count model's ``finalize`` computes it (``log(num) - log(den)``)."""
    if s["smoothing"] == "corpus" and pooled > 0:
        tempered = pooled if s["power"] == 1.0 else pooled ** s["power"]
        pseudo = s["scale"] * tempered
    else:
        pseudo = s["pseudo"]
    return math.log(count + pseudo) - s["log_den"][c]


def term_scores(ham: float, spam: float, s: dict[str, Any]) -> tuple[float, float, float]:
    """``(log θ_ham, log θ_spam, f(w))`` of a term with these class counts: what a message's
    score sums of it (``f(w)``, Robinson's, under Fisher's scoring only; else 0)."""
    pooled = ham + spam if s["ham_first"] else spam + ham
    f = 0.0
    if s["scoring"] == "fisher":
        n_ham, n_spam = s["class_count"]
        f = fisher.token_probability(ham, spam, n_ham, n_spam, s["strength"], s["prior"])
    return _log_theta(ham, pooled, 0, s), _log_theta(spam, pooled, 1, s), f


def log_odds(found: dict[str, Any]) -> float:
    """The filter's score ``s(x)`` of a message from :func:`read_terms` (``found["scored"]``,
    when given: the :func:`term_scores` of its rows, computed before)."""
    s, weights, rows = found["settings"], found["terms"], found["rows"]
    scored = found.get("scored")
    if scored is None:
        scored = [term_scores(ham, spam, s) for _, ham, spam in rows]
    score = 0.0
    if s["nb_weight"]:
        joint_ham = joint_spam = 0.0
        for (term, _, _), (log_ham, log_spam, _) in zip(rows, scored, strict=True):
            joint_ham += weights[term] * log_ham
            joint_spam += weights[term] * log_spam
        jll_ham = joint_ham + s["class_log_prior"][0]
        jll_spam = joint_spam + s["class_log_prior"][1]
        score = s["nb_weight"] * (jll_spam - jll_ham)
    if s["scoring"] == "fisher":
        score = score + fisher.combine((f for _, _, f in scored), s["min_dev"])
    return score


def spam_probability(found: dict[str, Any]) -> float:
    """The filter's calibrated ``P(spam|x)`` of a message from :func:`read_terms`."""
    s = found["settings"]
    score = log_odds(found)
    a, b = s["calibration"]
    z = a * score + b
    return math.exp(-fisher.logaddexp(0.0, -z))


def verdict(p_spam: float, settings: dict[str, Any]) -> str:
    """``"ham"``, ``"spam"`` or ``"unsure"`` by the filter's cutoffs."""
    if p_spam <= settings["ham_cutoff"]:
        return "ham"
    if p_spam >= settings["spam_cutoff"]:
        return "spam"
    return "unsure"


def score_message(model_path: str | os.PathLike[str], raw: bytes) -> tuple[float, str]:
    """``(P(spam|x), verdict)`` of one raw message by the store of ``model_path``; raises
    :class:`DeclinedError` when the store cannot give the model's own answer."""
    found = read_terms(model_path, raw)
    p = spam_probability(found)
    return p, verdict(p, found["settings"])


# ------------------------------------------------------------------ writing
if TYPE_CHECKING:
    #: What the store holds of a model: its settings, its terms and their counts (ham, spam).
    Snapshot = tuple[dict[str, Any], Any, Any]


def snapshot(model: Any) -> Snapshot:
    """What the store of a fitted SpamFilter holds (see :meth:`_Update.write`): the store's
    settings, its vocabulary and its counts (shape
    (2, n_terms), rows ham then spam); ``supported`` False (with ``why``) for a filter the
    pure-Python path cannot score exactly."""
    import numpy as np

    from ..families._dirichlet import check_alpha, corpus_pseudo_count, pseudo_count
    from ..naive_bayes import MultinomialNB

    vec, nb = model.fitted_parts()
    terms = np.asarray(vec.terms_) if vec.output != "hashed" else np.asarray([], dtype=str)
    total = np.asarray(nb.feature_count_, dtype=np.float64)
    column = model.spam_index()
    counts = total[[1 - column, column]]

    def unsupported(why: str) -> Snapshot:
        return {"supported": False, "why": why}, terms[:0], counts[:, :0]

    if type(nb) is not MultinomialNB:
        return unsupported(f"its count model is a {type(nb).__name__}")
    if callable(vec.analyzer) or vec.analyzer not in ("auto", "word", "email"):
        return unsupported(f"analyzer={vec.analyzer!r:.40}")
    if vec.output not in ("binary", "counts") or vec.vocabulary is not None:
        return unsupported(f"output={vec.output!r} with a fixed vocabulary or weights")
    if vec.oov_token is not None:
        return unsupported("an out-of-vocabulary column")
    if len(nb.classes_) != 2 or np.any(np.asarray(nb.class_count_) <= 0):
        return unsupported("a class without messages")
    if not isinstance(vec.stop_words, (type(None), str, list, tuple, set, frozenset)):
        return unsupported("stop words of another kind")
    from .analyze import stop_word_set

    n_features = total.shape[1]
    alpha = check_alpha(nb.alpha, n_features, force_alpha=nb.force_alpha)
    if not isinstance(alpha, float):
        return unsupported("an alpha per term")
    if nb.estimate != "mean" or alpha <= 0:
        return unsupported("estimates that may be 0 (log 0)")
    pooled = total.sum(axis=0)
    if nb.smoothing == "corpus":
        pseudo: Any = corpus_pseudo_count(alpha, pooled, float(nb.corpus_power))
    else:
        pseudo = pseudo_count(alpha, nb.estimate)
    den = (total + pseudo).sum(axis=1, keepdims=True)
    seen = pooled > 0
    power = float(nb.corpus_power)
    tempered = np.power(pooled, power, where=seen, out=np.zeros_like(pooled))
    scale = float(np.asarray(alpha) * (n_features / float(tempered.sum()))) if seen.any() else 0.0
    prior = np.asarray(nb.class_log_prior_, dtype=np.float64)
    settings: dict[str, Any] = {
        "supported": True,
        "analyzer": vec.analyzer,
        "lowercase": bool(vec.lowercase),
        "token_pattern": vec.token_pattern,
        "ngram_range": list(vec.ngram_range),
        "stop_words": sorted(stop_word_set(vec.stop_words)),
        "subject_in_text": bool(vec.subject_in_text),
        "encoding": vec.encoding,
        "binary": vec.output == "binary",
        "ham_first": column == 1,
        "smoothing": nb.smoothing if seen.any() else "uniform",
        "pseudo": float(alpha if nb.smoothing == "corpus" else pseudo),
        "scale": scale,
        "power": power,
        "log_den": [float(v) for v in np.log(den[[1 - column, column], 0])],
        "class_log_prior": [float(prior[1 - column]), float(prior[column])],
        "class_count": [float(v) for v in np.asarray(nb.class_count_)[[1 - column, column]]],
        "scoring": model.check_scoring(),
        "nb_weight": 1.0 if model.check_scoring() == "naive_bayes" else float(model.nb_weight),
        "strength": float(model.token_strength),
        "prior": float(model.token_prior),
        "min_dev": float(model.min_dev),
        "calibration": list(map(float, model.probability_scale())),
        "ham_cutoff": float(model.ham_cutoff),
        "spam_cutoff": float(model.spam_cutoff),
    }
    # The per-term rule above must give the model's own log θ (checked once per write).
    theta = np.log(total + pseudo) - np.log(den)
    if not np.allclose(theta, nb.feature_log_prob_, rtol=1e-12, atol=1e-12):
        return unsupported("its smoothing gives other probabilities")
    return settings, terms, counts


class _Update:
    """The token store's write transaction (see :func:`updating`)."""

    def __init__(self, db: sqlite3.Connection, model_path: str):
        """Raises :class:`BrokenStoreError` for a store whose meta table cannot be read (its
        settings not a JSON object): the caller throws it away."""
        self.db, self.model_path = db, model_path
        meta = _meta_of(db)
        settings = _settings_of(meta) if meta else {}  # (none in a new store)
        fresh = (
            os.path.exists(model_path)
            and meta.get("format") == str(FORMAT)
            and meta.get("stamp") == model_stamp(model_path)
            and settings.get("supported", False)
        )
        self.fresh = bool(fresh)

    def write(self, model: Any, stamp: str, previous: Snapshot | None = None) -> None:
        """Bring the store to ``model`` (written to the file whose stamp is ``stamp``): only
        the rows that changed since ``previous`` (:func:`snapshot` of the model the store
        holds, when it is fresh), else every row."""
        import numpy as np

        from .._values import find_sorted

        settings, terms, counts = snapshot(model)
        db = self.db
        if previous is not None and self.fresh and settings["supported"]:
            old_settings, old_terms, old_counts = previous
            if old_settings["supported"]:
                pos, found = find_sorted(old_terms, terms)
                same = found & np.all(old_counts[:, pos] == counts, axis=0)
                changed = np.flatnonzero(~same)
                gone = ~find_sorted(terms, old_terms)[1]
                db.executemany(
                    "DELETE FROM tokens WHERE term = ?", ((t,) for t in old_terms[gone].tolist())
                )
                self._put(terms[changed], counts[:, changed])
                self._meta(settings, stamp)
                return
        db.execute("DELETE FROM tokens")
        self._put(terms, counts)
        self._meta(settings, stamp)

    def _put(self, terms: Any, counts: Any) -> None:
        self.db.executemany(
            "INSERT OR REPLACE INTO tokens (term, ham, spam) VALUES (?, ?, ?)",
            zip(terms.tolist(), counts[0].tolist(), counts[1].tolist(), strict=True),
        )

    def _meta(self, settings: dict[str, Any], stamp: str) -> None:
        self.db.executemany(
            "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
            [("format", str(FORMAT)), ("stamp", stamp), ("settings", json.dumps(settings))],
        )


@contextmanager
def updating(model_path: str | os.PathLike[str]) -> Iterator[_Update]:
    """The token store of ``model_path`` in one write transaction (``BEGIN IMMEDIATE``):
    committed when the block ends (after the caller has put the new model file in place),
    rolled back if it raises. A process killed inside the block leaves the store as it was,
    stamped for the model file before: stale if that file was replaced, never wrong. Raises
    :class:`BrokenStoreError` (before the block) for a file of another layout or whose meta
    table cannot be read, and :class:`sqlite3.Error` for one SQLite cannot read."""
    _as_private_as_the_model(model_path)
    db = sqlite3.connect(store_path(model_path), timeout=_WRITE_TIMEOUT, isolation_level=None)
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            if not _has_tables(db):  # a new file: the tables are made in this transaction
                for statement in _TABLES.values():
                    db.execute(statement)
            yield _Update(db, os.fspath(model_path))
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    finally:
        db.close()
    _as_private_as_the_model(model_path)  # (a model the block created)


def _as_private_as_the_model(model_path: str | os.PathLike[str]) -> None:
    """Give the store the model file's permissions (read and write bits), creating it with
    them when it does not exist yet: it holds the same counts, so a model kept private
    (``chmod 600``) must not have them readable by all beside it, as SQLite's own creation
    would leave them (0644 less the umask). SQLite creates its journal with the database
    file's permissions; one left by a process killed mid-write is set here too. Nothing is
    done without a model file (its first save sets them) or when they cannot be set
    (another user's store): the store is only a copy."""
    try:
        mode = os.stat(model_path).st_mode & 0o666
        fd = os.open(store_path(model_path), os.O_RDWR | os.O_CREAT, mode)
    except OSError:
        return
    try:
        if os.fstat(fd).st_mode & 0o7777 != mode:
            os.fchmod(fd, mode)
    except OSError:
        pass
    finally:
        os.close(fd)
    for suffix in ("-journal", "-wal", "-shm"):
        with suppress(OSError):  # (mostly: there is none)
            os.chmod(store_path(model_path) + suffix, mode)


def rebuild(model: Any, model_path: str | os.PathLike[str], stamp: str) -> None:
    """Write the whole store of ``model``, loaded from ``model_path`` whose stamp was
    ``stamp`` when it was read; a file there that is no store (:func:`broken`) is replaced."""
    try:
        with updating(model_path) as update:
            update.write(model, stamp)
    except (sqlite3.Error, BrokenStoreError) as exc:
        if not broken(exc):
            raise
        discard(model_path)
        with updating(model_path) as update:
            update.write(model, stamp)


#: SQLite's errors that say the file is no store of this layout (not that it is busy, full or
#: read-only): it may be thrown away, being only a copy of what the model file holds.
_BROKEN = frozenset({"SQLITE_NOTADB", "SQLITE_CORRUPT", "SQLITE_ERROR"})
_BROKEN_WORDS = ("not a database", "malformed", "no such column", "no such table")


def broken(exc: BaseException) -> bool:
    """Whether ``exc`` says the store's file is not a store (corrupt, another program's
    database, another layout, content that cannot be read: :class:`BrokenStoreError`) rather
    than that it cannot be written now."""
    if isinstance(exc, BrokenStoreError):
        return True
    if not isinstance(exc, sqlite3.Error):
        return False
    name = getattr(exc, "sqlite_errorname", None)  # (Python 3.11+)
    if name is not None:
        return name in _BROKEN
    return any(words in str(exc) for words in _BROKEN_WORDS)


def discard(model_path: str | os.PathLike[str]) -> None:
    """Remove the token store of ``model_path`` (and SQLite's journal beside it), if any: the
    next message scored by the full model writes a fresh one."""
    for suffix in ("", "-journal", "-wal", "-shm"):
        with suppress(FileNotFoundError):
            os.unlink(store_path(model_path) + suffix)
