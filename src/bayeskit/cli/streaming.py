"""Training from batches: ``bayeskit train`` reads its data a batch at a time
(:mod:`bayeskit.io.stream`) and adds each batch's statistics to the model, so its memory stays
flat in the size of the input.

The first batch fits the model (and fixes what a fit decides from the data: the columns'
families, the vectorizer) — but a model that chooses part of its layout from the rows' values
and classes (a Bayesian network's cut points; the contract's ``layout_from_rows``) takes it
from a sample spread over all of DATA, read first (:func:`spread_rows`); every later batch is
summarized under it — here, or on a Dask
cluster (:mod:`bayeskit.cli.cluster`) — and the summaries are added in batch order, so a run
on a cluster writes the same model file as a run on one machine.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..contract import contract_of
from ..io.readers import ReadError
from ..io.stream import Batch, DocumentStream, FileBatch, TableStream
from ..reduction import Part, Round, rounds_for
from ..text import SpamFilter, TextClassifier, capped
from .data import (
    Labelled,
    ReadOptions,
    _is_folder,
    choose_columns,
    describe_counts,
    describe_data,
    merge_classes,
    missing_target,
    note_missing_words,
    parse_merge,
    text_of,
)
from .errors import rows_of
from .models import _spam_labels, build_model, first_not_number, is_text_model, not_numeric
from .options import DOCUMENT_BATCH as DOCUMENT_BATCH  # declared with --batch-size
from .options import MAX_TERMS as MAX_TERMS  # declared with --max-terms
from .output import note
from .progress import Meter

#: Rows (tables) or documents (folders) per batch unless --batch-size says otherwise.
TABLE_BATCH = 100_000
#: Documents summarized at a time within a batch (see summarize_batch).
TEXT_CHUNK = 10_000
#: The messages of a SpamFilter trained in batches whose held-out scores fit its probability
#: scale: at most this many, evenly spaced over DATA (see calibrate).
CALIBRATION_SAMPLE = 10_000
#: The rows, spread over DATA, a layout chosen from the rows (a network's cut points) is
#: chosen from when DATA comes in more than one batch: as many as a default batch, so a
#: table of up to that many rows gets the layout a fit on all of it gets, whatever the batch
#: size (see spread_rows).
LAYOUT_SAMPLE = TABLE_BATCH


@dataclass(frozen=True)
class Prepare:
    """What turns a batch as read into the model's input: its text column, or its feature
    columns without the row IDs; the labels after --merge (sent to the workers with file
    batches, which they read themselves)."""

    text_column: str | None = None
    merges: tuple[tuple[str, str], ...] = ()
    id_columns: tuple[str, ...] = ()
    source: str = ""  # what a model's error about one row names (the file)

    def __call__(self, raw: Batch | FileBatch) -> tuple[Batch, list[Any]]:
        """(the batch ready to learn from, its distinct labels before --merge)."""
        batch = raw.read() if isinstance(raw, FileBatch) else raw
        X = batch.X
        if self.text_column is not None:
            X = text_of(X.get_column(self.text_column))
        elif self.id_columns:
            X = X.drop(self.id_columns)
        labels = list(dict.fromkeys(batch.y.tolist()))  # distinct, without sorting strings
        y = np.asarray(self.relabel(batch.y.tolist())) if self.merges else batch.y
        return Batch(X, y, batch.rows, batch.nbytes, batch.first_row), labels

    def relabel(self, labels: list[Any]) -> list[Any]:
        """``labels`` after --merge."""
        mapping = dict(self.merges)
        return [mapping.get(str(v), v) for v in labels]


@dataclass
class TrainingData:
    """Training data opened for reading in batches."""

    source: str
    kind: str  # "table", "text" or "email"
    prepare: Prepare
    batches: Iterator[Batch | FileBatch]  # as read (file batches unread)
    total_bytes: int
    width: int | None = None  # feature columns of a table
    target: str | None = None
    text_column: str | None = None
    id_columns: tuple[str, ...] = ()  # row IDs left out of the model
    #: The classes (after --merge) known before the first batch is learned: a folder's class
    #: folders, the labels in a table's first rows (those its columns are chosen from). A
    #: text model is chosen from them, so a first batch of one class does not decide it.
    classes: tuple[Any, ...] = ()

    def labels_for_choice(self, first: np.ndarray) -> np.ndarray:
        """The labels the model is chosen from: the known classes and the first batch's."""
        return np.concatenate([np.asarray(self.classes), first]) if self.classes else first


def open_data(
    data: str, target: str | None, text: str | None, options: ReadOptions, batch_size: int | None
) -> TrainingData:
    """DATA opened for training in batches, with the checks ``load_labelled`` makes."""
    merges = tuple(
        (old, new) for spec in options.merge for new, olds in [parse_merge(spec)] for old in olds
    )
    if _is_folder(data, options):
        if target is not None:
            note(f"{data} is a folder: the classes are its sub-folders; --target is not used")
        docs = DocumentStream(data, batch_size=batch_size or DOCUMENT_BATCH)
        prepare = Prepare(None, merges)
        classes = tuple(dict.fromkeys(prepare.relabel(docs.classes)))
        return TrainingData(
            data, docs.kind, prepare, docs.file_batches(), docs.size, classes=classes
        )
    kwargs = options.table_kwargs()
    del kwargs["text_columns"]  # (training: every column's type comes from its values)
    # the first rows' markers written as words are kept as they are read, for the note on
    # a column of categories (note_missing_words), rather than read again
    table = TableStream(
        data, target=target, batch_size=batch_size or TABLE_BATCH, words_rows=TABLE_BATCH,
        **kwargs,
    )  # fmt: skip
    if target is None:
        raise missing_target(data, list(table.schema))
    batches = iter(table)
    head = [next(batches)]
    while sum(b.rows for b in head) < TABLE_BATCH and (more := next(batches, None)) is not None:
        head.append(more)
    # The columns (row IDs, text or features) are chosen from the first rows, the same ones
    # whatever the batch size: all of them when the table fits in one default batch, as
    # load_labelled chooses from the whole table.
    import polars as pl

    sample = pl.concat([b.X for b in head]).head(TABLE_BATCH)
    features, ids, column = choose_columns(sample, text, options, data)
    if column is None:
        note_missing_words(table.format in ("csv", "tsv"), features, options, table.missing_words)
    prepare = Prepare(column, merges, tuple(ids), source=data)
    head_labels = np.concatenate([b.y for b in head])[:TABLE_BATCH]
    classes = tuple(dict.fromkeys(prepare.relabel(head_labels.tolist())))
    return TrainingData(
        data,
        "table" if column is None else "text",
        prepare,
        itertools.chain(head, batches),
        table.size,
        features.width,
        target,
        column,
        tuple(ids),
        classes,
    )


#: Summarizes batches in order: (round, prepare, batches) -> for each batch, in order, its
#: part, its rows and bytes, and its distinct labels before --merge.
Runner = Callable[
    [Round, Prepare, Iterator[Batch | FileBatch]], Iterator[tuple[Part, int, int, list[Any]]]
]


def summarize_batch(step: Round, prepare: Prepare, raw: Batch | FileBatch, index: int) -> Any:
    """One batch's part of the round (run wherever the batch is read)."""
    batch, labels = prepare(raw)
    # (here, or on a Dask worker: the error is made where it is raised)
    with rows_of(prepare.source, batch.first_row) if prepare.source else contextlib.nullcontext():
        part = summarize_chunks(step, batch.X, batch.y, index)
    return part, batch.rows, batch.nbytes, labels


def summarize_chunks(step: Round, X: Any, y: np.ndarray, index: int) -> Part:
    """The part of rows ``X``, ``y``; documents are summarized ``TEXT_CHUNK`` at a time and
    their statistics added: counting 1-2-grams takes working memory in proportion to the
    documents counted at once (100,000 short messages: about 300 MB), the statistics they
    leave far less."""
    if not isinstance(X, list) or len(X) <= TEXT_CHUNK:
        values, schema = step.summarize(step.state, X, y, None)
        return Part(index, tuple(values), schema)
    parts = [
        summarize_chunks(step, X[at : at + TEXT_CHUNK], y[at : at + TEXT_CHUNK], index)
        for at in range(0, len(X), TEXT_CHUNK)
    ]
    while len(parts) > 1:  # in pairs: each term merged about log2(chunks) times, not chunks
        pairs = zip(parts[::2], parts[1::2], strict=False)
        parts = [add_parts(a, b) for a, b in pairs] + parts[len(parts) // 2 * 2 :]
    return parts[0]


def add_parts(a: Part, b: Part) -> Part:
    """``a + b`` (a text model's statistics kept per term add with one merge of their terms
    for the counts and the vocabulary statistics both)."""
    return a + b


def run_here(
    step: Round, prepare: Prepare, batches: Iterator[Batch | FileBatch]
) -> Iterator[tuple[Part, int, int, list[Any]]]:
    """Summarize each batch in this process."""
    for index, raw in enumerate(batches, start=1):
        yield summarize_batch(step, prepare, raw, index)


@dataclass
class Trained:
    """A model trained from batches, and what it was trained on."""

    model: Any
    data: TrainingData
    rows: int

    def describe(self) -> str:
        """``4827 rows × 3 columns; classes: ham 4827, spam 747``, as for data read whole."""
        counts = np.rint(np.asarray(self.model.class_count_)).astype(np.int64)
        per_class = describe_counts(np.asarray(self.model.classes_), counts)
        data = self.data
        return describe_data(data.kind, self.rows, data.width, data.text_column, per_class)


def _located(refusal: ReadError, data: TrainingData, choice: str, first: Batch) -> ReadError:
    """A model's refusal of a column that is not numbers, found in a later batch than the
    first: the file's row and value of the first such value, read on for it."""
    import polars as pl

    wrong = [c for c, t in first.X.schema.items() if t == pl.String]
    if refusal.column is None or data.kind != "table" or not wrong:
        return refusal
    if first_not_number(first.X, wrong) is not None:
        return refusal  # found in the first batch: it names its row already
    for raw in data.batches:
        batch = data.prepare(raw)[0]
        if first_not_number(batch.X, wrong) is not None:
            return not_numeric(data.source, choice, batch.X, wrong, batch.first_row)
    return refusal


def train(
    data: TrainingData,
    choice: str,
    alpha: float | None,
    integers: str | None,
    merges: list[str],
    *,
    runner: Runner = run_here,
    max_terms: int = MAX_TERMS,
    reopen: Callable[[], TrainingData] | None = None,
    settings: dict[str, Any] | None = None,
) -> Trained:
    """Fit the model ``choice`` batch by batch (see the module docstring). A text model's
    statistics keep at most ``max_terms`` terms (:func:`cap_terms`, after every batch).
    ``reopen``: DATA opened again, for the sample a model's layout may be chosen from;
    ``settings``: the model's (``--set``)."""
    unit = _unit(data.kind)
    with Meter("training", unit=unit, total_bytes=data.total_bytes or None) as meter:
        first, raw_labels = data.prepare(next(data.batches))
        labels = set(raw_labels)
        chosen_by = data.labels_for_choice(first.y) if data.kind != "table" else first.y
        try:
            labelled = Labelled(data.source, data.kind, first.X, chosen_by)
            model = build_model(choice, labelled, alpha, integers, settings=settings)
        except ReadError as refusal:
            raise _located(refusal, data, choice, first) from None
        second = next(data.batches, None)
        if contract_of(model).decision == "spam" and second is not None:
            # batches add no held-out scores: the scale is fitted afterwards (calibrate);
            # data of one batch is fitted (and calibrated) as SpamFilter().fit does
            model.set_params(calibration_folds=None)
        # Documents of more than one batch: the model learns a first chunk of them, and the
        # rest of the batch is summarized a chunk at a time, as later batches are.
        chunked = second is not None and isinstance(first.X, list)
        head = TEXT_CHUNK if chunked else len(first.y)
        if second is not None and reopen is not None and _layout_from_rows(model, first.X):
            # the layout from rows spread over DATA, not from the first batch (a file sorted
            # by class would give a network no cut points); then the first batch is counted
            # under it, as every later one is
            X, y, at = spread_rows(reopen(), LAYOUT_SAMPLE)
            with rows_of(data.source, at):
                model.summarize(X, y)
            with rows_of(data.source):
                model.fit_summary(model.summarize(first.X[:head], first.y[:head]))
        else:
            with rows_of(data.source):
                model.partial_fit(first.X[:head], first.y[:head])
        rows = first.rows
        rounds = rounds_for(model, partial=True)
        step = next(rounds)
        keyed = _term_keyed(model)
        # A text model's statistics, the first batch's included, are added here (to be
        # capped); any other model's later batches are added, then sent to the model.
        total: Part | None = None
        if keyed:
            total = Part(0, (model.stats_,))
            if head < len(first.y):
                total = add_parts(total, summarize_chunks(step, first.X[head:], first.y[head:], 0))
            total = cap_terms(total, max_terms)
        meter.advance(first.rows, first.nbytes)
        more = data.batches if second is None else itertools.chain([second], data.batches)
        for part, n, nbytes, seen in runner(step, data.prepare, more):
            total = part if total is None else add_parts(total, part)
            if keyed:
                total = cap_terms(total, max_terms)
            rows += n
            labels.update(seen)
            meter.advance(n, nbytes)
        if keyed and total is not None:
            model.fit_summary(total.values[0])
        elif total is not None:
            with contextlib.suppress(StopIteration):
                rounds.send(total)
    _check_classes(data, sorted(labels, key=str), merges, rows)
    declared = contract_of(model)
    if declared.state == "generative" and declared.input != "documents":
        # learned by partial_fit, refused as fit refuses it (e.g. a singular covariance)
        model.check_fit()
    return Trained(settle_text_model(model), data, rows)


def _layout_from_rows(model: Any, X: Any) -> bool:
    """Whether ``model`` chooses part of its layout from the rows' values and classes (its
    contract's ``layout_from_rows``) and the table has numbers for it to cut."""
    import polars as pl

    if not contract_of(model).layout_from_rows or not isinstance(X, pl.DataFrame):
        return False
    return any(t.is_numeric() for t in X.schema.values())


def spread_rows(data: TrainingData, size: int) -> tuple[Any, np.ndarray, np.ndarray]:
    """Rows of a table spread evenly over all of it, read in one pass without knowing its
    length: rows 0, s, 2s, … (from 0, in reading order), ``s`` the least power of 2 that keeps
    at most ``size`` of them, so a table of at most ``size`` rows gives every row. Memory
    holds at most ``size`` rows and a batch. Returns (X, y, each row's place in the file)."""
    import polars as pl

    step = 1
    frames: list[Any] = []
    labels: list[np.ndarray] = []
    places: list[np.ndarray] = []
    seen = 0
    with Meter("sampling", unit=_unit(data.kind), total_bytes=data.total_bytes or None) as meter:
        for raw in data.batches:
            batch, _ = data.prepare(raw)
            at = np.arange(seen, seen + batch.rows)
            take = np.flatnonzero(at % step == 0)
            frames.append(batch.X[take])
            labels.append(batch.y[take])
            places.append(at[take])
            seen += batch.rows
            while sum(len(p) for p in places) > size:  # half as many, twice as far apart
                step *= 2
                keep = [np.flatnonzero(p % step == 0) for p in places]
                frames = [f[k] for f, k in zip(frames, keep, strict=True)]
                labels = [v[k] for v, k in zip(labels, keep, strict=True)]
                places = [p[k] for p, k in zip(places, keep, strict=True)]
            meter.advance(batch.rows, raw.nbytes)
    return pl.concat(frames), np.concatenate(labels), np.concatenate(places)


def _term_keyed(model: Any) -> bool:
    """Whether ``model`` keeps its statistics per term (a text model whose vocabulary grows
    with the data)."""
    return (
        contract_of(model).input == "documents"
        and model.keeps_term_statistics()
        and model.__sklearn_is_fitted__()
    )


def cap_terms(total: Part, max_terms: int) -> Part:
    """A text model's statistics so far with at most ``max_terms`` terms
    (:func:`bayeskit.text.capped.cap_terms`: the terms found in the most documents)."""
    (stats,) = total.values
    return Part(total.first, (capped.cap_terms(stats, max_terms),), total.schema)


def train_rounds(
    reopen: Callable[[], TrainingData],
    choice: str,
    alpha: float | None,
    integers: str | None,
    merges: list[str],
    *,
    runner: Runner = run_here,
    unlabelled: Callable[[], Iterator[Batch | FileBatch]] | None = None,
    settings: dict[str, Any] | None = None,
) -> Trained:
    """Fit the model ``choice`` by its own rounds (EM: one per iteration, see
    :mod:`bayeskit.reduction`), each a pass over the batches of DATA read again
    (``reopen``), summarized here or on the cluster and added in batch order, so memory stays
    flat and a run on a cluster writes the same model file as a run on one machine.
    ``unlabelled``: the batches of unlabelled documents, read after DATA's at every pass; the
    model is then a SemiSupervisedNB over the text model, and ``rows`` counts DATA's alone.
    ``settings``: the model's (``--set``)."""
    from ..semi_supervised import SemiSupervisedNB

    more = (lambda: iter(())) if unlabelled is None else unlabelled
    data = reopen()
    unit = _unit(data.kind)
    head = next(data.batches)
    first, _ = data.prepare(head)
    labelled = Labelled(data.source, data.kind, first.X, first.y)
    semi = unlabelled is not None
    try:
        model = build_model(
            choice, labelled, alpha, integers, semi_supervised=semi, settings=settings
        )
    except ReadError as refusal:
        raise _located(refusal, data, choice, first) from None
    if unlabelled is not None:
        model = SemiSupervisedNB(model)
    rounds = rounds_for(model, partial=False)
    step = next(rounds)
    batches: Iterator[Batch | FileBatch] = itertools.chain([head], data.batches, more())
    labels: set[Any] = set()
    rows = 0
    for number in itertools.count():
        what = "training: EM start" if number == 0 else f"training: EM iteration {number}"
        total: Part | None = None
        with Meter(what, unit=unit, total_bytes=data.total_bytes or None) as meter:
            for part, n, nbytes, seen in runner(step, data.prepare, batches):
                total = part if total is None else total + part
                if number == 0 and not (seen and all(v is None for v in seen)):
                    rows += n
                    labels.update(seen)
                meter.advance(n, nbytes)
        if number == 0:
            _check_classes(data, sorted(labels, key=str), merges, rows)
        assert total is not None  # the first batch has rows
        try:
            step = rounds.send(total)
        except StopIteration as done:
            return Trained(done.value, data, rows)
        data = reopen()
        batches = itertools.chain(data.batches, more())
    raise AssertionError("unreachable")  # pragma: no cover


def calibrate(
    model: SpamFilter,
    reopen: Callable[[], TrainingData],
    rows: int,
    *,
    sample: int = CALIBRATION_SAMPLE,
    folds: int = 5,
) -> SpamFilter:
    """``model``, trained from DATA's ``rows`` messages in batches, with its probability scale
    fitted on held-out scores of a sample of them, as ``SpamFilter().fit`` fits it on all:
    DATA is read again for the messages :func:`sample_rows` picks, which are cut into
    ``folds`` folds (stratified, seeded), each scored by the model's statistics minus the
    fold's (:meth:`SpamFilter.held_out_score_counts`: the model trained without it; as far
    as the model kept them when its terms were capped). It costs one pass of reading plus
    held-out scores of at most ``sample`` messages, whatever the length of DATA; the score
    counts are kept in the file (``bayeskit merge`` adds them)."""
    docs, labels = read_sample(reopen(), sample_rows(rows, sample))
    counts = model.held_out_score_counts(docs, labels, kept_only=True)
    return model.set_params(calibration_folds=folds).calibrate(counts)


def sample_rows(rows: int, sample: int) -> np.ndarray:
    """The rows (numbered from 0 in reading order) of a calibration sample: every row when
    there are at most ``sample``, else rows ``floor((k + 1/2) rows / sample)`` for ``k = 0 …
    sample - 1``, spread evenly over the data whatever its order (folders are read class by
    class) and the batch size."""
    if rows <= sample:
        return np.arange(rows)
    return ((np.arange(sample) + 0.5) * rows / sample).astype(np.int64)


def read_sample(data: TrainingData, take: np.ndarray) -> tuple[list[Any], np.ndarray]:
    """The documents and labels of rows ``take`` (increasing) of DATA, read in batches (a
    table's other rows are not prepared; a folder's files are read to count their messages)."""
    docs: list[Any] = []
    labels: list[Any] = []
    seen = 0
    with Meter("calibrating", unit=_unit(data.kind), total_bytes=data.total_bytes or None) as meter:
        for raw in data.batches:
            if isinstance(raw, Batch):  # a table's rows: only the sampled ones are prepared
                n = raw.rows
                local = take[np.searchsorted(take, seen) : np.searchsorted(take, seen + n)] - seen
                batch, _ = data.prepare(Batch(raw.X[local], raw.y[local], len(local), 0))
            else:  # a folder's files, read: the rows are their messages
                batch, _ = data.prepare(raw)
                n = batch.rows
                local = take[np.searchsorted(take, seen) : np.searchsorted(take, seen + n)] - seen
                batch = Batch([batch.X[i] for i in local], batch.y[local], len(local), 0)
            docs.extend(batch.X)
            labels.extend(batch.y.tolist())
            seen += n
            meter.advance(n, raw.nbytes)
    return docs, np.asarray(labels)


def _unit(kind: str) -> str:
    """What the progress meter counts for data of this kind."""
    return {"table": "rows", "text": "texts", "email": "e-mails"}.get(kind, "documents")


def _check_classes(data: TrainingData, labels: list[Any], merges: list[str], rows: int) -> None:
    """At least two classes (after --merge, with its checks), as ``load_labelled`` requires."""
    if merges:
        merge_classes(np.asarray(labels), merges, data.source)
    elif len(labels) < 2:
        raise ReadError(
            f"{data.source}: the target column {data.target!r} has one class "
            f"({labels[0]!r} in all {rows} rows); a classifier needs examples of at least two "
            "classes",
            path=data.source,
            column=data.target,
        )


def settle_text_model(model: Any) -> Any:
    """A text model as the class its classes call for: a SpamFilter when they are ham and
    spam, a TextClassifier otherwise. The statistics and the settings they were counted with
    are kept as they are. (``train`` chooses the model from the classes known before the
    first batch; this settles a class first seen later, past a table's first rows, or EM's.)"""
    if not is_text_model(model) or not _term_keyed(model):
        return model
    labels = _spam_labels(np.asarray(model.classes_))
    if (labels is not None) == (contract_of(model).decision == "spam"):
        return model
    # The settings the statistics were counted with, even where they were left at a default:
    # TextClassifier() and SpamFilter() need not default alike.
    vectorizer, inner = model.prototypes()
    parts: dict[str, Any] = {"vectorizer": vectorizer, "model": inner}
    settled: TextClassifier
    if labels is not None:
        # No held-out scores of the batches already learned: the model's own probabilities.
        settled = SpamFilter(
            **parts, ham_label=labels[0], spam_label=labels[1], calibration_folds=None
        )
    else:
        settled = TextClassifier(**parts)
    settled.fit_summary(model.stats_)
    return settled
