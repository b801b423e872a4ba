"""``bayeskit merge``: one model file from several trained on different data — their
statistics add, so the result is the model trained on all of the data at once."""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer

from ..errors import BayeskitError
from .options import ForceOpt


def merge(
    models: Annotated[
        list[str], typer.Argument(metavar="MODEL...", help="Model files to merge (two or more).")
    ],
    output: Annotated[
        str,
        typer.Option(
            "--output",
            "-o",
            metavar="FILE",
            help="Model file to write (an existing model file is replaced; another file only "
            "with --force, and never one of the models merged).",
        ),
    ],
    force: ForceOpt = False,
) -> None:
    """Merge model files trained on different data into the model of all of it (e.g. models
    trained on separate machines or months). They must be the same kind of model with the
    same settings and columns; the first difference found is named."""
    from .._merging import merge as merge_models
    from ..io.readers import ReadError
    from .models import describe, load_model, load_reading
    from .output import check_output_path, human_size, is_model_file, out_console, save_model

    if len(models) < 2:
        raise typer.BadParameter("give two or more model files to merge", param_hint="MODEL")
    check_output_path(
        output, inputs=models, force=force, replaceable=is_model_file, what="a bayeskit model file"
    )
    _refuse_one_file_twice(models)
    loaded = [load_model(path) for path in models]
    merged = loaded[0]
    for path, model in zip(models[1:], loaded[1:], strict=True):
        _check_same_settings(models[0], loaded[0], path, model)
        try:
            # Python's merge decides what merges exactly (its refusals name why): the files
            # merge exactly when the models do
            merged = merge_models(merged, model)
        except BayeskitError as exc:
            raise ReadError(f"{models[0]} and {path} cannot be merged: {exc}", path=path) from None
    # How the training data was read (stored by ``bayeskit train``, used by ``predict``):
    # kept when every file agrees on it, as the model trained on all of the data has it.
    readings = [load_reading(path) for path in models]
    reading = readings[0] if all(r == readings[0] for r in readings[1:]) else None
    save_model(merged, output, reading=reading)
    console = out_console()
    console.print(f"model: {describe(merged)}")
    counts = ", ".join(
        f"{c} {n:.0f}" for c, n in zip(merged.classes_, merged.class_count_, strict=True)
    )
    console.print(f"merged {len(models)} models: classes {counts}")
    console.print(f"wrote {output} ({human_size(os.path.getsize(output))})")


def _refuse_one_file_twice(paths: list[str]) -> None:
    """Refuse a model file given twice (by any path to it: ``x.bk`` and ``./x.bk``, a link):
    the model of the union of its rows with themselves is the model itself."""
    from ..io.readers import ReadError

    seen: dict[tuple[int, int] | str, str] = {}
    for path in paths:
        try:
            st = os.stat(path)
            key: tuple[int, int] | str = (st.st_dev, st.st_ino)
        except OSError:
            key = os.path.realpath(path)  # (loading it names what is wrong)
        if key in seen:
            raise ReadError(
                f"{seen[key]} and {path} are the same model file: merging a model with itself "
                "would count every row twice, while the model of the union of its rows with "
                "themselves is the model itself (to weigh rows twice, train with sample "
                "weights)",
                path=path,
            )
        seen[key] = path


def _check_same_settings(first: str, a: Any, path: str, b: Any) -> None:
    """Refuse models of different kinds or settings, naming the first difference."""
    from ..io.readers import ReadError

    if type(a) is not type(b):
        raise ReadError(
            f"{first} holds a {type(a).__name__} and {path} a {type(b).__name__}; only models "
            "of the same kind merge",
            path=path,
        )
    mine, theirs = _flat_params(a), _flat_params(b)
    differ = [k for k in sorted(mine.keys() | theirs.keys()) if mine.get(k) != theirs.get(k)]
    if differ:
        shown = "; ".join(
            f"{k}={mine.get(k)} in {first} but {theirs.get(k)} in {path}" for k in differ[:3]
        )
        raise ReadError(
            f"{first} and {path} were trained with different settings ({shown}); only models "
            "trained with the same settings merge",
            path=path,
        )


def _flat_params(model: Any) -> dict[str, str]:
    """Every setting, nested ones as ``model__alpha``, by its repr (so arrays compare); a
    nested estimator by its class name."""
    params = model.get_params(deep=True)
    return {k: type(v).__name__ if hasattr(v, "get_params") else repr(v) for k, v in params.items()}
