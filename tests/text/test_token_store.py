"""The spam filter's token store: the fast path's terms, scores and verdicts are the model's;
a stale, missing or unsupported store is never used; learning keeps it in step, a killed
learner leaves it stale, never wrong; scoring from it imports no numpy or scikit-learn."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.cli.filter_cmd import _change
from bayeskit.naive_bayes import ComplementNB
from bayeskit.text import token_store

from .._spam_corpus import SRC, needs_corpus, trained_filter
from .._spam_corpus import files as _files

pytestmark = needs_corpus
SCORED = 4 << 20


def _fitted(tmp: Path, name: str, **params: Any) -> Path:
    path = trained_filter(tmp / name, 60, **params)
    token_store.rebuild(bk.load(path), path, token_store.model_stamp(path))
    return path


@pytest.fixture(
    scope="module",
    params=[
        {"scoring": "naive_bayes"},
        {"scoring": "fisher"},
        # Fisher's log-odds plus the count model's: the store sums both parts as the model does
        {"scoring": "fisher", "nb_weight": 1.0},
    ],
    ids=["naive_bayes", "fisher", "fisher+naive_bayes"],
)
def model(request, tmp_path_factory) -> Path:
    return _fitted(tmp_path_factory.mktemp("store"), "m.bk", **request.param)


def _check_same(path: Path, files: list[Path]) -> int:
    """Assert the store gives the model's terms, scores and verdicts for every file; return
    how many the store declined."""
    filt = bk.load(path)
    vec = filt.fitted_parts()[0]
    names = vec.get_feature_names_out()
    declined = 0
    for start in range(0, len(files), 200):
        raws = [p.read_bytes()[:SCORED] for p in files[start : start + 200]]
        X = vec.transform(raws)
        scores, p_spam = filt.log_odds(raws), filt.spam_probability(raws)
        verdicts = filt.verdicts(p_spam)
        for i, raw in enumerate(raws):
            try:
                found = token_store.read_terms(path, raw)
            except token_store.DeclinedError:
                declined += 1
                continue
            assert [t for t, _, _ in found["rows"]] == sorted(names[X[i].indices].tolist())
            score, p = token_store.log_odds(found), token_store.spam_probability(found)
            assert score == pytest.approx(scores[i], rel=1e-9, abs=1e-9)
            assert p == pytest.approx(p_spam[i], rel=1e-9, abs=1e-12)
            if min(abs(p - filt.ham_cutoff), abs(p - filt.spam_cutoff)) > 1e-9:
                assert token_store.verdict(p, found["settings"]) == verdicts[i]
    return declined


def test_the_store_gives_the_models_terms_scores_and_verdicts(model):
    files = random.Random(0).sample(_files(), 150)
    assert _check_same(model, files) == 0


@pytest.mark.slow
def test_every_spamassassin_message_scores_as_the_model_does(tmp_path):
    path = _fitted(tmp_path, "m.bk")
    assert _check_same(path, _files()) == 0  # not one declined


def _rows(path: Path) -> tuple[list[Any], dict[str, Any]]:
    with sqlite3.connect(token_store.store_path(path)) as db:
        rows = db.execute("SELECT term, ham, spam FROM tokens ORDER BY term").fetchall()
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    return rows, {**meta, "settings": json.loads(meta["settings"])}


def test_the_store_in_memory_scores_as_the_store_on_disk(model):
    """The service's per-snapshot table (TokenTable) gives the store's own answer, to the
    bit, for raw messages; for a message as text (what the service reads of a message for a
    filter that is not analyzer="email"), the model's to 1e-9. Each term's scores are kept
    once a message has held it: a second pass over the messages answers the same."""
    filt = bk.load(model)
    table = token_store.TokenTable(filt)
    raws = [p.read_bytes()[:SCORED] for p in random.Random(1).sample(_files(), 60)]
    for _ in range(2):
        for raw in raws:
            assert table.score(raw) == token_store.score_message(model, raw)
    texts = [raw.decode("latin-1") for raw in raws[:30]]
    p_spam, verdicts = filt.spam_probability(texts), filt.classify(texts)
    for text, p, expected in zip(texts, p_spam, verdicts, strict=True):
        got, verdict = table.score(text)
        assert got == pytest.approx(p, rel=1e-9, abs=1e-12)
        if min(abs(got - filt.ham_cutoff), abs(got - filt.spam_cutoff)) > 1e-9:
            assert verdict == expected


def test_a_stale_or_missing_store_is_never_used(tmp_path):
    path = _fitted(tmp_path, "m.bk")
    raw = _files("spam_2")[0].read_bytes()
    token_store.score_message(path, raw)
    bk.save(bk.load(path), path)  # written without the store (as bayeskit train does)
    with pytest.raises(token_store.DeclinedError, match="stale"):
        token_store.score_message(path, raw)
    os.unlink(token_store.store_path(path))
    with pytest.raises(token_store.DeclinedError, match="no token store"):
        token_store.score_message(path, raw)


def test_a_store_of_another_layout_is_declined_and_replaced(tmp_path):
    """Tables named meta and tokens without their keys (another program's, an older layout)
    are no store: declined, and thrown away by the rebuild, never written into (a second row
    of a term would be counted twice)."""
    path = _fitted(tmp_path, "m.bk")
    raw = _files("spam_2")[0].read_bytes()
    rows, meta = _rows(path)
    os.unlink(token_store.store_path(path))
    with sqlite3.connect(token_store.store_path(path)) as db:
        db.execute("CREATE TABLE meta (key TEXT, value TEXT)")
        db.execute("CREATE TABLE tokens (term TEXT, ham REAL, spam REAL)")
        db.executemany("INSERT INTO tokens VALUES (?, ?, ?)", rows + rows)  # each term twice
        db.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [(k, json.dumps(v) if k == "settings" else v) for k, v in meta.items()],
        )
    db.close()
    with pytest.raises(token_store.DeclinedError, match="another layout") as declined:
        token_store.score_message(path, raw)
    assert declined.type is token_store.BrokenStoreError  # (thrown away by a rebuild)
    token_store.rebuild(bk.load(path), path, token_store.model_stamp(path))
    assert _rows(path)[0] == rows
    assert _check_same(path, _files("spam_2")[:10]) == 0


@pytest.mark.parametrize("bad", ["'12x'", "-1.0", "9e999", "X'00'"])
def test_a_looked_up_row_that_holds_no_counts_is_declined(tmp_path, bad):
    path = _fitted(tmp_path, "m.bk")
    raw = _files("spam_2")[0].read_bytes()
    term = token_store.read_terms(path, raw)["rows"][0][0]
    with sqlite3.connect(token_store.store_path(path)) as db:
        db.execute(f"UPDATE tokens SET ham = {bad} WHERE term = ?", (term,))
    db.close()
    with pytest.raises(token_store.DeclinedError, match="holds no counts") as declined:
        token_store.score_message(path, raw)
    assert declined.type is token_store.BrokenStoreError  # (thrown away by a rebuild)
    token_store.rebuild(bk.load(path), path, token_store.model_stamp(path))  # as the CLI does
    assert _check_same(path, _files("spam_2")[:5]) == 0


def test_a_filter_it_cannot_score_exactly_is_declined(tmp_path):
    path = _fitted(tmp_path, "c.bk", model=ComplementNB())
    with pytest.raises(token_store.DeclinedError, match="ComplementNB"):
        token_store.score_message(path, _files("spam_2")[0].read_bytes())
    with pytest.raises(token_store.DeclinedError, match="ComplementNB"):
        token_store.TokenTable(bk.load(path))


def test_learning_writes_the_rows_a_rebuild_would(tmp_path):
    path = _fitted(tmp_path, "m.bk")
    _change(str(path), [p.read_bytes() for p in _files("spam_2")[:4]], "spam", True, False)
    _change(str(path), [p.read_bytes() for p in _files("easy_ham_2")[:3]], "ham", True, False)
    _change(str(path), [p.read_bytes() for p in _files("spam_2")[:2]], "spam", False, False)
    rows, meta = _rows(path)
    assert meta["stamp"] == token_store.model_stamp(path)
    fresh = tmp_path / "copy.bk"
    fresh.write_bytes(path.read_bytes())
    token_store.rebuild(bk.load(fresh), fresh, token_store.model_stamp(fresh))
    rebuilt, rebuilt_meta = _rows(fresh)
    assert rows == rebuilt
    assert meta["settings"] == rebuilt_meta["settings"]
    assert bk.load(path).class_count_.tolist() == [63.0, 62.0]
    assert _check_same(path, _files("spam_2")[:20] + _files("hard_ham")[:20]) == 0


def test_a_learner_killed_between_the_model_and_the_commit_leaves_a_stale_store(tmp_path):
    path = _fitted(tmp_path, "m.bk")
    before = _rows(path)[0]
    message = _files("spam_2")[5]
    script = f"""
import os, signal
import bayeskit as bk
from bayeskit.cli.output import save_model
from bayeskit.text import token_store
path = {str(path)!r}
model = bk.load(path)
previous = token_store.snapshot(model)
model.partial_fit([open({str(message)!r}, 'rb').read()], ['spam'])
with token_store.updating(path) as store:
    save_model(model, path, before_replace=lambda tmp: store.write(
        model, token_store.model_stamp(tmp), previous))
    os.kill(os.getpid(), signal.SIGKILL)  # the model replaced, the store not committed
"""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-c", script], env=env, timeout=300)
    assert done.returncode == -9
    assert bk.load(path).class_count_.tolist() == [60.0, 61.0]  # the learn is kept
    assert _rows(path)[0] == before  # the store as it was: its old stamp ...
    with pytest.raises(token_store.DeclinedError, match="stale"):  # ... so never used
        token_store.score_message(path, message.read_bytes())
    command = [sys.executable, "-m", "bayeskit", "filter", str(path), "--verbose"]
    out = subprocess.run(command, input=message.read_bytes(), capture_output=True, env=env)
    assert b"scored by the full model" in out.stderr
    token_store.score_message(path, message.read_bytes())  # rebuilt by that run
    assert _check_same(path, _files("spam_2")[:10]) == 0


def test_scoring_from_the_store_imports_no_numpy_scipy_sklearn_or_typer(model):
    message = _files("spam_2")[0]
    script = f"""
import sys
from bayeskit.cli.filter_fast import classify
status, out = classify({str(model)!r}, open({str(message)!r}, 'rb').read(), True)
print(status, sorted(m for m in ('numpy', 'scipy', 'sklearn', 'typer', 'rich')
                     if m in sys.modules))
"""
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, timeout=300, check=True
    )
    status, heavy = done.stdout.decode().split(" ", 1)
    assert b"scored from the token store" in done.stderr
    assert heavy.strip() == "[]"
    expected = bk.load(model).classify([message.read_bytes()])[0]
    assert int(status) == {"spam": 0, "ham": 1, "unsure": 2}[str(expected)]


def test_the_store_holds_the_models_counts(model):
    rows, meta = _rows(model)
    filt = bk.load(model)
    vec, nb = filt.fitted_parts()
    assert [t for t, _, _ in rows] == sorted(vec.terms_.tolist())
    counts = np.asarray([[h for _, h, _ in rows], [s for _, _, s in rows]])
    assert np.array_equal(counts, nb.feature_count_)  # classes_ is [ham, spam]
    assert meta["settings"]["class_count"] == nb.class_count_.tolist()
