"""Request bodies to model input: MLflow's scoring payloads, CSV, and one message of text.

Every mistake raises :class:`RequestError` with the HTTP status to answer and a message
naming the problem (the key, column or byte at fault) and what is accepted.
"""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING, Any

from ..contract import contract_of

if TYPE_CHECKING:
    from ..text import TextClassifier
from ..errors import BayeskitError

__all__ = ["SHAPES", "RequestError", "invocation_input", "message_input"]

#: The four JSON shapes of MLflow's scoring protocol.
SHAPES = ("dataframe_split", "dataframe_records", "instances", "inputs")
SOURCE = "the request"


class RequestError(BayeskitError, ValueError):
    """A request the server refuses; ``status`` is the HTTP status of the answer."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def media_type(content_type: str) -> tuple[str, dict[str, str]]:
    """``("text/plain", {"charset": "utf-8"})`` from a Content-Type header."""
    kind, *params = content_type.split(";")
    options = {}
    for param in params:
        key, _, value = param.partition("=")
        options[key.strip().lower()] = value.strip().strip('"')
    return kind.strip().lower(), options


def decode_text(body: bytes, charset: str = "utf-8") -> str:
    """The body as text in ``charset``; a body not valid in it is refused, naming the byte."""
    try:
        return body.decode(charset)
    except LookupError:
        raise RequestError(f"unknown charset {charset!r}; send UTF-8", status=415) from None
    except UnicodeDecodeError as exc:
        raise RequestError(
            f"the body is not valid {charset} text (byte 0x{body[exc.start]:02x} at offset "
            f"{exc.start}); send UTF-8 text, or a raw e-mail as Content-Type: message/rfc822"
        ) from None


# ---------------------------------------------------------------------------------- /check
def message_input(body: bytes, content_type: str, model: TextClassifier) -> str | bytes:
    """The document a text model reads for one message: raw bytes for an e-mail model, text
    for the others. ``text/plain`` must be valid UTF-8 (or its declared charset);
    ``message/rfc822`` (and ``application/octet-stream``) are raw e-mail bytes."""
    kind, options = media_type(content_type or "text/plain")
    email = _is_email_model(model)
    if kind in ("message/rfc822", "application/octet-stream"):
        if email:
            return body
        try:  # as a word model reads a message file: UTF-8, else latin-1
            return body.decode("utf-8")
        except UnicodeDecodeError:
            return body.decode("latin-1")
    if kind not in ("text/plain", ""):
        raise RequestError(
            f"Content-Type {kind!r} is not accepted here; send the message as text/plain "
            "(UTF-8) or a raw e-mail as message/rfc822",
            status=415,
        )
    text = decode_text(body, options.get("charset", "utf-8"))
    return text.encode("utf-8") if email else text


def _is_email_model(model: TextClassifier) -> bool:
    vectorizer = model.vectorizer
    return vectorizer is not None and vectorizer.analyzer == "email"


# ---------------------------------------------------------------------------------- /invocations
def invocation_input(
    body: bytes, content_type: str, model: Any, query_proba: bool
) -> tuple[Any, bool]:
    """(rows the model predicts, whether probabilities were asked for) from an MLflow scoring
    request: JSON with exactly one of :data:`SHAPES`, or ``text/csv``."""
    kind, options = media_type(content_type or "application/json")
    if kind == "text/csv":
        import polars as pl

        text = decode_text(body, options.get("charset", "utf-8"))
        try:
            frame = pl.read_csv(io.StringIO(text), infer_schema_length=None)
        except Exception as exc:  # polars raises several kinds for a malformed CSV
            message = " ".join(str(exc).split())[:300]
            raise RequestError(f"the CSV body cannot be read: {message}") from None
        return _rows(frame, model), query_proba
    if kind != "application/json":
        raise RequestError(
            f"Content-Type {kind!r} is not accepted by /invocations; send application/json "
            f"(one of {', '.join(SHAPES)}) or text/csv",
            status=415,
        )
    try:
        payload = json.loads(decode_text(body, options.get("charset", "utf-8")))
    except ValueError as exc:
        raise RequestError(f"malformed JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise RequestError(
            f"the JSON body must be an object with one of the keys {', '.join(SHAPES)}; got "
            f"a {type(payload).__name__}"
        )
    shapes = [key for key in SHAPES if key in payload]
    unknown = sorted(set(payload) - {*SHAPES, "params"})
    if len(shapes) != 1 or unknown:
        found = ", ".join(map(repr, payload)) or "none"
        raise RequestError(
            f"the JSON body must hold exactly one of {', '.join(SHAPES)} (and optionally "
            f"params); its keys are: {found}"
        )
    params = payload.get("params") or {}
    if not isinstance(params, dict):
        raise RequestError('params must be a JSON object, such as {"probabilities": true}')
    proba = params.get("probabilities", params.get("predict_proba", query_proba))
    if not isinstance(proba, bool):
        raise RequestError(f"params.probabilities must be true or false, not {proba!r}")
    frame = _frame(shapes[0], payload[shapes[0]], model)
    return _rows(frame, model), proba


def _frame(shape: str, value: Any, model: Any) -> Any:
    """A polars frame of the rows a JSON shape holds (columns named when the shape names
    them, else the model's training columns in order)."""
    import polars as pl

    if shape == "dataframe_split":
        if not isinstance(value, dict) or not isinstance(value.get("data"), list):
            raise RequestError(
                'dataframe_split must be {"columns": [...], "data": [[...], ...]} '
                '(pandas\' orient="split")'
            )
        columns = value.get("columns")
        rows = value["data"]
        if columns is None:
            return _positional(rows, model)
        if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
            raise RequestError("dataframe_split.columns must be a list of column names")
        return _from_rows(rows, columns)
    if shape == "dataframe_records":
        return _records(value)
    # instances / inputs: a list of rows, of records or of texts, or a dict of columns
    if isinstance(value, dict):
        if not all(isinstance(v, list) for v in value.values()):
            raise RequestError(f"{shape} as an object must map each column to a list of values")
        lengths = {len(v) for v in value.values()}
        if len(lengths) > 1:
            raise RequestError(f"the columns of {shape} have different lengths: {sorted(lengths)}")
        return _build(lambda: pl.DataFrame(value, strict=False))
    if not isinstance(value, list) or not value:
        raise RequestError(f"{shape} must be a non-empty list of rows (or an object of columns)")
    if all(isinstance(row, dict) for row in value):
        return _records(value)
    if _documents(model) and all(isinstance(row, str) for row in value):
        return pl.DataFrame({"text": value})
    return _positional(value, model)


def _documents(model: Any) -> bool:
    """Whether ``model`` reads documents (a text model), by its declaration."""
    return contract_of(model).input == "documents"


def _records(value: Any) -> Any:
    import polars as pl

    if not isinstance(value, list) or not value or not all(isinstance(r, dict) for r in value):
        raise RequestError("dataframe_records must be a non-empty list of objects {column: value}")
    columns = list(dict.fromkeys(key for record in value for key in record))
    return _build(lambda: pl.DataFrame(value, schema=columns, strict=False))


def _positional(rows: Any, model: Any) -> Any:
    """Rows without column names: as many values as the model has columns, in order."""
    if _documents(model):
        columns = ["text"]
    else:
        names = getattr(model, "feature_names_in_", None)
        n = int(model.n_features_in_)
        columns = [str(c) for c in names] if names is not None else [f"x{j}" for j in range(n)]
    if not isinstance(rows, list) or not rows:
        raise RequestError("the rows must be a non-empty list of lists")
    for i, row in enumerate(rows):
        if not isinstance(row, list):
            row = [row] if len(columns) == 1 else row
            if not isinstance(row, list):
                raise RequestError(f"row {i} is not a list of values: {row!r:.80}")
        if len(row) != len(columns):
            raise RequestError(
                f"row {i} has {len(row)} values; the model reads {len(columns)} columns "
                f"({_names(columns)})"
            )
    return _from_rows([r if isinstance(r, list) else [r] for r in rows], columns)


def _from_rows(rows: Any, columns: list[str]) -> Any:
    import polars as pl

    for i, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != len(columns):
            raise RequestError(
                f"row {i} of data does not have one value for each of the {len(columns)} "
                f"columns ({_names(columns)})"
            )
    if len(set(columns)) != len(columns):
        raise RequestError(f"the column names repeat: {_names(columns)}")
    return _build(lambda: pl.DataFrame(rows, schema=columns, orient="row", strict=False))


def _build(make: Any) -> Any:
    try:
        return make()
    except Exception as exc:  # polars: mixed or nested values in one column
        raise RequestError(
            f"the rows cannot form a table: {' '.join(str(exc).split())[:300]}; give each "
            "column numbers, strings, booleans or null"
        ) from None


def _rows(frame: Any, model: Any) -> Any:
    """What ``model.predict_proba`` takes: the documents of a text model, or the frame with
    the model's training columns (named in any error) read as the model reads them."""
    import polars as pl

    from ..io.columns import align_columns, conform, training_columns

    if frame.height == 0:
        raise RequestError("no rows to predict")
    if _documents(model):
        column = "text" if "text" in frame.columns else None
        if column is None and frame.width == 1:
            column = frame.columns[0]
        if column is None:
            raise RequestError(
                f"a text model reads one column of text; the request has {_names(frame.columns)}"
                ": send one column, or name the text column 'text'"
            )
        values = frame.get_column(column)
        if values.dtype != pl.String or values.null_count():
            raise RequestError(f"column {column!r} must hold text (strings) in every row")
        return values.to_list()
    expected = training_columns(model)
    if expected is None:
        n = int(model.n_features_in_)
        if frame.width != n:
            raise RequestError(f"the request has {frame.width} columns; the model reads {n}")
        return frame.to_numpy()
    aligned = align_columns(frame, expected, SOURCE)
    return conform(aligned, model, SOURCE)


def _names(columns: list[str]) -> str:
    shown = ", ".join(repr(c) for c in columns[:10])
    return shown + (f", … ({len(columns)} in all)" if len(columns) > 10 else "")
