"""The table formats and their file name extensions: constants without numpy, so the command
line's help can name them without importing the readers."""

from __future__ import annotations

__all__ = ["TABLE_EXTENSIONS", "TABLE_FORMATS"]

TABLE_FORMATS = ("csv", "tsv", "jsonl", "parquet")
TABLE_EXTENSIONS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}
