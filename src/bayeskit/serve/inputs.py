"""Request bodies to model input: MLflow's scoring payloads, CSV, and one message of text.

Every mistake raises :class:`RequestError` with the HTTP status to answer and a message
naming the problem (the key, column or byte at fault) and what is accepted.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
import sys
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import BayeskitError
from ..io._header_names import r_row_names_layout, with_row_names_named
from ._csv_body import refuse_other_separator, set_aside, without_aside
from .refusal import RequestError

__all__ = [
    "MAX_JSON_DEPTH",
    "SHAPES",
    "RequestError",
    "column_names",
    "invocation_input",
    "message_input",
    "read_json",
    "reads_text",
]

#: The four JSON shapes of MLflow's scoring protocol.
SHAPES = ("dataframe_split", "dataframe_records", "instances", "inputs")
SOURCE = "the request"
#: The keys of ``dataframe_split`` (pandas' ``orient="split"``, as MLflow sends it); the
#: index is read and ignored (the answer is in the rows' order)
SPLIT_KEYS = ("columns", "index", "data")
#: The keys /invocations reads in ``params``: two names of one setting, whether to answer
#: each row's probabilities.
PARAMS = ("probabilities", "predict_proba")
#: The deepest nesting of arrays and objects a JSON body may have. MLflow's shapes need 4
#: (``{"dataframe_split": {"data": [[value]]}}``); Python's JSON parser recurses once per
#: level, so a body nested thousands deep would exhaust its stack.
MAX_JSON_DEPTH = 32
# A JSON string (unrolled: no backtracking per character), and what is not a bracket.
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")

if TYPE_CHECKING:
    from ..io.readers import BlankLines
    from ..text import TextClassifier


def media_type(content_type: str) -> tuple[str, dict[str, str]]:
    """``("text/plain", {"charset": "utf-8"})`` from a Content-Type header."""
    kind, *params = content_type.split(";")
    options = {}
    for param in params:
        key, _, value = param.partition("=")
        options[key.strip().lower()] = value.strip().strip('"')
    return kind.strip().lower(), options


#: codecs Python decodes text with that name no character set (domain names; one that
#: refuses everything): refused as unknown charsets
NOT_CHARSETS = frozenset({"idna", "punycode", "undefined"})


def decode_text(body: bytes, charset: str = "utf-8") -> str:
    """The body as text in ``charset``; a body not valid in it is refused, naming the byte.

    The text is valid Unicode: some codecs (UTF-7, ``unicode_escape``) decode to lone UTF-16
    surrogates, which no model, journal or answer could encode again, so they are refused
    here, as a UTF-8 body holding one is."""
    try:
        if codecs.lookup(charset).name in NOT_CHARSETS:
            raise LookupError(charset)
        text = body.decode(charset)
    except LookupError:
        raise RequestError(f"unknown charset {charset!r}; send UTF-8", status=415) from None
    except UnicodeDecodeError as exc:
        raise RequestError(
            f"the body is not valid {charset} text (byte 0x{body[exc.start]:02x} at offset "
            f"{exc.start}); send UTF-8 text, or a raw e-mail as Content-Type: message/rfc822"
        ) from None
    except UnicodeError as exc:  # a codec's own refusal of these bytes
        raise RequestError(
            f"the body is not valid {charset} text ({exc}); send UTF-8 text"
        ) from None
    if charset.lower().replace("_", "-") not in ("utf-8", "utf8"):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise _surrogate_error(exc, f"the body (charset {charset!r})") from None
    return text


def _surrogate_error(exc: UnicodeEncodeError, where: str) -> RequestError:
    return RequestError(
        f"{where} holds the lone UTF-16 surrogate \\u{ord(exc.object[exc.start]):04x}, which is "
        "not a character (a \\uD800-\\uDBFF escape must be followed by its \\uDC00-\\uDFFF "
        "pair); send valid Unicode text"
    )


def json_depth(text: str) -> int:
    """How deep the arrays and objects of a JSON text nest (brackets inside strings do not
    count); vectorised, so a 4 MiB body costs milliseconds."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    if not brackets:
        return 0
    codes = np.frombuffer(brackets.encode("ascii"), dtype=np.uint8)
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1)
    return int(np.cumsum(steps).max())


def json_kind(value: Any) -> str:
    """What a JSON value is, in JSON's words: ``true``, ``null``, ``the number 1``, ``an
    array of 3 values`` (a user sent JSON, not Python: not ``bool`` or ``NoneType``)."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return f"the number {json.dumps(value)}"
    if isinstance(value, str):
        shown = value[:40] + ("…" if len(value) > 40 else "")
        return f"the string {json.dumps(shown, ensure_ascii=False)}"
    if isinstance(value, list):
        return f"an array of {len(value)} value{'s' * (len(value) != 1)}"
    return "an object"


def read_json(body: bytes, charset: str = "utf-8") -> Any:
    """A JSON body, read within bounds: at most :data:`MAX_JSON_DEPTH` levels of nesting,
    strings of valid Unicode (an escaped lone surrogate, ``"\\ud800"``, is refused). Every
    refusal is a :class:`RequestError` naming the problem."""
    text = decode_text(body, charset)
    depth = json_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise RequestError(
            f"the JSON body nests arrays and objects {depth} levels deep; this server reads "
            f"at most {MAX_JSON_DEPTH} (MLflow's scoring shapes need 4)"
        )
    try:
        payload = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_not_json)
    except RequestError:
        raise
    except ValueError as exc:
        raise RequestError(_json_error(exc)) from None
    if "\\u" in text:  # only an escape can make a lone surrogate
        try:
            json.dumps(payload, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise _surrogate_error(exc, "a string of the JSON body") from None
    return payload


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose names are unique (RFC 8259, section 4: a parser's choice among
    repeated names, Python's being the last, would answer for a value that was not meant)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for twice, _ in pairs:
            if twice in seen:
                break
            seen.add(twice)
        raise RequestError(f"a JSON object of the body names {twice!r} twice; give each key once")
    return out


def _not_json(word: str) -> Any:
    """Refuses ``NaN``, ``Infinity`` and ``-Infinity``, which Python's parser reads (as
    JavaScript writes them) but JSON does not have (RFC 8259, section 6)."""
    raise RequestError(
        f"the JSON body holds {word}, which is not a JSON value (RFC 8259, section 6: numbers "
        "are finite); send null for a missing value"
    )


def _json_error(exc: ValueError) -> str:
    """What is wrong with a body Python's JSON parser refused, in the client's terms."""
    digits = re.search(r"value has (\d+) digits", str(exc))
    if digits:  # Python's words advise its programmer: "use sys.set_int_max_str_digits()"
        return (
            f"malformed JSON: a number of {digits.group(1)} digits; this server reads whole "
            f"numbers of at most {sys.get_int_max_str_digits()} digits"
        )
    return f"malformed JSON: {exc}"


def reads_text(model: Any) -> bool:
    """Whether ``model`` reads documents (text or raw e-mails) rather than rows, as its
    scikit-learn tags declare (a TextClassifier, or a wrapper of one)."""
    tags = model.__sklearn_tags__().input_tags
    return bool(tags.string and not tags.two_d_array)


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
    body: bytes,
    content_type: str,
    model: Any,
    query_proba: bool,
    missing: Sequence[str] | None = None,
) -> tuple[Any, bool]:
    """(rows the model predicts, whether probabilities were asked for) from an MLflow scoring
    request: JSON with exactly one of :data:`SHAPES`, or ``text/csv`` (whose fields in
    ``missing`` are missing values; default: the empty field and
    :data:`~bayeskit.io.readers.DEFAULT_MISSING`)."""
    kind, options = media_type(content_type or "application/json")
    if kind == "text/csv":
        import polars as pl

        from ..io._padding import padding_removed
        from ..io.readers import DEFAULT_MISSING

        markers = list(DEFAULT_MISSING if missing is None else missing)
        # (a byte-order mark is no part of the first column's name)
        text = decode_text(body, options.get("charset", "utf-8")).removeprefix("\ufeff")
        if not text.strip():  # (polars' words: "empty CSV")
            raise RequestError(
                "the CSV body is empty: send a header line naming the columns, then one row "
                "per line"
            )
        names = column_names(model)
        refuse_other_separator(text, names)
        declared = _declared_header(options)
        if declared is None:
            header = not _first_line_is_data(text, names, model, markers)
        else:
            header = declared
        if header and r_row_names_layout(text, "csv"):
            # R's write.table: row names under no name (as the command line reads them)
            text = with_row_names_named(text.encode("utf-8"), ",").decode("utf-8")
        first, blank = _check_fields(text, header, names) if text.strip() else (None, None)
        aside = set_aside(first, names) if header and first is not None else []
        if header and first is not None and names != ["text"]:
            from ..io.columns import check_column_names

            # refused by the header's names before polars reads a column of the body (a
            # header of 200,000 names took it seconds); a header alone has no rows first
            if not any(line.strip() for line in text.strip().splitlines()[1:]):
                fields = [f.strip() for f in first if f not in aside]
                if declared is None and fields != names:  # a guess: said, as below
                    shown = ",".join(fields)
                    shown = shown if len(shown) <= 80 else shown[:80] + "…"
                    raise RequestError(
                        f"no rows to predict: the only line ({shown}) was read as a header, "
                        "since none of its fields is a value its column holds; if it is a "
                        "row, send Content-Type: text/csv; header=absent, RFC 4180's header "
                        "parameter"
                    )
                raise RequestError("no rows to predict")
            try:
                check_column_names([f.strip() for f in first if f not in aside], names, SOURCE)
            except BayeskitError as exc:
                if declared is not None or _folded_overlap(first, names):
                    raise
                # a guess: said, with how to send a first line that is a row
                raise RequestError(
                    f"{exc} (the first line was read as a header; if it is a row, send "
                    "Content-Type: text/csv; header=absent, RFC 4180's header parameter)"
                ) from None
        try:
            frame = pl.read_csv(
                io.StringIO(text),
                has_header=header,
                # The header's names as Python's csv module reads them (RFC 4180), as
                # bayeskit train read the training file's: polars keeps the doubled quotes
                # of a quoted name ("""q,c""" is "q,c" to the csv module, ""q,c"" to polars).
                new_columns=(first if header else names) if first is not None else None,
                infer_schema_length=None,
                # missing as the CLI reads the model's data (the usual markers: NA, NaN, null…)
                null_values=markers,
            )
        except Exception as exc:  # polars raises several kinds for a malformed CSV
            message = " ".join(str(exc).split())[:300]
            raise RequestError(f"the CSV body cannot be read: {message}") from None
        if blank:  # read as rows of nulls: dropped as bayeskit predict drops them
            frame = blank.dropped(frame, header=header)
        frame = without_aside(frame, aside)
        # fields and names padded with spaces ("age, flag"), as bayeskit predict reads them
        frame = padding_removed(
            frame.rename({c: c.strip() for c in frame.columns if c != c.strip()}), markers
        )
        columns = {c: frame.get_column(c) for c in frame.columns}
        return _rows(columns, model), query_proba
    if kind != "application/json":
        raise RequestError(
            f"Content-Type {kind!r} is not accepted by /invocations; send application/json "
            f"(one of {', '.join(SHAPES)}) or text/csv",
            status=415,
        )
    if not body.strip():  # (Python's words: "Expecting value: line 1 column 1 (char 0)")
        raise RequestError(
            f"the JSON body is empty: send an object with one of the keys {', '.join(SHAPES)}"
        )
    payload = read_json(body, options.get("charset", "utf-8"))
    if not isinstance(payload, dict):
        hint = ' (rows go in {"instances": [...]})' if isinstance(payload, list) else ""
        raise RequestError(
            f"the JSON body must be an object with one of the keys {', '.join(SHAPES)}; got "
            f"{json_kind(payload)}{hint}"
        )
    shapes = [key for key in SHAPES if key in payload]
    unknown = sorted(set(payload) - {*SHAPES, "params"})
    if len(shapes) != 1 or unknown:
        found = ", ".join(map(repr, payload)) or "none"
        raise RequestError(
            f"the JSON body must hold exactly one of {', '.join(SHAPES)} (and optionally "
            f"params); its keys are: {found}"
        )
    params = payload.get("params")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise RequestError('params must be a JSON object, such as {"probabilities": true}')
    unknown_params = [key for key in params if key not in PARAMS]
    if unknown_params:
        # refused rather than ignored: a misspelled "probabilites" would answer labels alone
        raise RequestError(
            f"params holds {_names(unknown_params)}, which /invocations does not know; "
            f"accepted: {_names(list(PARAMS))}"
        )
    proba = params.get("probabilities", params.get("predict_proba", query_proba))
    if not isinstance(proba, bool):
        raise RequestError(f"params.probabilities must be true or false, not {_json_shown(proba)}")
    return _rows(_columns(shapes[0], payload[shapes[0]], model), model), proba


def column_names(model: Any) -> list[str]:
    """The columns a model reads, in order: ``text`` for a text model, else its training
    columns (``x0``, ``x1``, … for a model fitted on a bare matrix)."""
    if reads_text(model):
        return ["text"]
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        return [str(c) for c in names]
    return [f"x{j}" for j in range(n_features(model))]


def n_features(model: Any) -> int:
    """How many columns a table model reads (a wrapper: the estimator it declares)."""
    n = getattr(model, "n_features_in_", None)
    if n is None:
        n = model.__dict__["estimator_"].n_features_in_
    return int(n)


#: RFC 4180 (section 3), the ``header`` parameter of ``text/csv``: whether the first line
#: is a header
HEADER_PARAMETER = {"present": True, "absent": False}


def _declared_header(options: dict[str, str]) -> bool | None:
    """Whether the Content-Type says the first line is a header (``header=present``) or a
    row (``header=absent``); None when it does not say."""
    value = options.get("header")
    if value is None:
        return None
    declared = HEADER_PARAMETER.get(value.lower())
    if declared is None:
        raise RequestError(
            f"the Content-Type's header parameter is {value!r}; RFC 4180 (section 3) defines "
            "header=present (the first line names the columns) and header=absent (it is a "
            "row), or leave it out"
        )
    return declared


def _folded_overlap(fields: list[str], names: list[str]) -> bool:
    folded = {_folded(n) for n in names}
    return any(_folded(f) in folded for f in fields)


def _first_line_is_data(
    text: str, names: list[str], model: Any = None, markers: Sequence[str] = ()
) -> bool:
    """Whether a CSV body starts with a row of values rather than a header line (a row
    pasted without its header): none of its fields names one of the model's columns, and
    it has one field per column, or all its fields are numbers (no header is all numbers),
    and, where the model's columns say which values they hold (numbers, known categories),
    at least one field is such a value (``foo,bar`` over text categories is a header whose
    names are wrong, not a row of unseen categories)."""
    # (blank lines before it are no part of the body, as bayeskit predict reads a file)
    line = text.lstrip("\ufeff").lstrip("\r\n").partition("\n")[0].rstrip("\r")
    if not line.strip():
        return False
    try:
        fields = next(csv.reader([line]))
    except csv.Error:
        return False
    if any(f.strip() in names for f in fields):
        return False
    # nor a header naming the columns in another case or Unicode form ("Age", "A,B"): as a
    # row it would be answered as one more row of unseen values; as a header it is refused
    # naming the columns, as bayeskit predict refuses it
    folded = {_folded(n) for n in names}
    if any(_folded(f) in folded for f in fields):
        return False
    numbers = all(_is_number(f) for f in fields)
    if len(fields) != len(names):
        return numbers and names != ["text"]
    if names == ["text"]:  # one text per line: a header would be a word such as "message"
        return "\n" not in text.strip()
    if names[0] == "x0" and names == [f"x{j}" for j in range(len(names))]:
        return numbers
    if model is None or numbers:
        return True
    from .values import values_of_columns

    judged = values_of_columns(model, names, [f.strip() for f in fields], markers)
    # a row when one field is a value of its column, or when no column can tell
    return any(judged) or all(j is None for j in judged)


def _folded(name: str) -> str:
    return unicodedata.normalize("NFC", name.strip()).casefold()


def _check_fields(text: str, header: bool, names: list[str]) -> tuple[list[str], BlankLines]:
    """The fields of a CSV body's first line (its header, when it has one); refuses a body
    whose rows do not all have as many fields as its first line (read as missing values
    otherwise), as ``bayeskit predict`` does, and a body without a header whose rows do not
    have one field per column of the model."""
    from ..io._header_names import named_header
    from ..io.readers import check_header, check_rows

    first, blank = check_rows(text, SOURCE, "csv", header)
    if header:  # a name given twice, or none, refused by line as bayeskit predict does
        first = named_header(first)  # (row names, a separator ending every line: set aside)
        check_header(first, SOURCE)
    if not header and len(first) != len(names):
        raise RequestError(
            f"{SOURCE}, line 1: {len(first)} field{'s' * (len(first) != 1)} where the model "
            f"reads {len(names)} columns "
            f"({_names(names)}); give every row one value per column, or start the body with "
            "a header line naming the columns"
        )
    return first, blank


def _is_number(field: str) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


#: A request's table: each column's values (a list of JSON values, or a polars Series for
#: a CSV body), by column name in the request's order.
Columns = dict[str, Any]


def _columns(shape: str, value: Any, model: Any) -> Columns:
    """The columns a JSON shape holds (named as the shape names them, else as the model's
    columns in order)."""
    if shape == "dataframe_split":
        if not isinstance(value, dict) or not isinstance(value.get("data"), list):
            raise RequestError(
                'dataframe_split must be {"columns": [...], "data": [[...], ...]} '
                '(pandas\' orient="split")'
            )
        unknown = [key for key in value if key not in SPLIT_KEYS]
        if unknown:
            # refused rather than ignored: a misspelled "colums" would read the rows by
            # position, and a "dtypes" would not be applied
            raise RequestError(
                f"dataframe_split holds {_names(unknown)}, which /invocations does not read; "
                f'accepted: {_names(list(SPLIT_KEYS))} (pandas\' orient="split"; index is '
                "ignored)"
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
            counts = ", ".join(f"{c!r} has {len(v)}" for c, v in list(value.items())[:10])
            raise RequestError(
                f"the columns of {shape} have different numbers of values ({counts}); give "
                "every column one value per row"
            )
        return dict(value)
    if not isinstance(value, list) or not value:
        raise RequestError(f"{shape} must be a non-empty list of rows (or an object of columns)")
    if all(isinstance(row, dict) for row in value):
        return _records(value)
    if reads_text(model) and all(isinstance(row, str) for row in value):
        return {"text": value}
    return _positional(value, model)


def _records(value: Any) -> Columns:
    if not isinstance(value, list) or not value or not all(isinstance(r, dict) for r in value):
        raise RequestError("dataframe_records must be a non-empty list of objects {column: value}")
    columns = list(dict.fromkeys(key for record in value for key in record))
    return {c: [record.get(c) for record in value] for c in columns}


def _positional(rows: Any, model: Any) -> Columns:
    """Rows without column names: as many values as the model has columns, in order."""
    columns = column_names(model)
    if not isinstance(rows, list) or not rows:
        raise RequestError("the rows must be a non-empty list of lists")
    for i, row in enumerate(rows, start=1):
        if not isinstance(row, list):
            row = [row] if len(columns) == 1 else row
            if not isinstance(row, list):
                raise RequestError(
                    f"row {i} is not a list of values: it is {_json_shown(row)}; give each row "
                    f"as a list of {len(columns)} values"
                )
        if len(row) != len(columns):
            raise RequestError(
                f"row {i} has {len(row)} values; the model reads {len(columns)} columns "
                f"({_names(columns)})"
            )
    return _from_rows([r if isinstance(r, list) else [r] for r in rows], columns)


def _from_rows(rows: Any, columns: list[str]) -> Columns:
    for i, row in enumerate(rows, start=1):
        if not isinstance(row, list) or len(row) != len(columns):
            raise RequestError(
                f"row {i} of data does not have one value for each of the {len(columns)} "
                f"columns ({_names(columns)})"
            )
    if len(set(columns)) != len(columns):
        raise RequestError(f"the column names repeat: {_names(columns)}")
    return {c: [row[j] for row in rows] for j, c in enumerate(columns)}


def _rows(columns: Columns, model: Any) -> Any:
    """What ``model.predict_proba`` takes: the documents of a text model, or the table of the
    model's columns (by name: ``x0``, ``x1``, … for a model fitted on a bare matrix, as
    /metadata names them), each value checked as the model reads its column."""
    import polars as pl

    from ..io.columns import check_column_names, conform, training_columns
    from .values import column_series, value_kinds

    if not columns or not len(next(iter(columns.values()))):
        raise RequestError("no rows to predict")
    if reads_text(model):
        return _texts(columns)
    names = column_names(model)
    # names every column missing or unknown (no values are read for that)
    check_column_names(list(columns), names, SOURCE)
    kinds = value_kinds(model, names)
    frame = pl.DataFrame([column_series(c, columns[c], kinds[c]) for c in names])
    if training_columns(model) is None:
        return frame.to_numpy()
    return conform(frame, model, SOURCE)


def _texts(columns: Columns) -> list[str]:
    """The documents of a text model: the column ``text``, or the request's one column."""
    names = list(columns)
    column = "text" if "text" in columns else names[0] if len(names) == 1 else None
    if column is None:
        raise RequestError(
            f"a text model reads one column of text; the request has {_names(names)}"
            ": send one column, or name the text column 'text'"
        )
    extra = [c for c in names if c != column]
    if extra:
        raise RequestError(
            f"a text model reads one column of text, {column!r}; the request also has "
            f"{_names(extra)}: leave them out"
        )
    values = columns[column]
    values = values.to_list() if not isinstance(values, list) else values
    for row, value in enumerate(values, start=1):
        if not isinstance(value, str):
            shown = json.dumps(value, ensure_ascii=False)[:60]
            raise RequestError(
                f"column {column!r} must hold text (strings) in every row; row {row} holds {shown}"
            )
    return list(values)


def _json_shown(value: Any) -> str:
    """A value of the request as its JSON (null, true, {"a": 1}), cut at 80 characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "…"


def _names(columns: list[str]) -> str:
    shown = ", ".join(repr(c) for c in columns[:10])
    return shown + (f", … ({len(columns)} in all)" if len(columns) > 10 else "")
