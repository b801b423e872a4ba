"""Lazy prediction: one task per partition, the fitted model sent to the workers once."""

from __future__ import annotations

import uuid
from typing import Any

import numpy as np

from ..errors import DataError, InputTypeError
from ._partitions import _kind, located, n_rows


def predict(estimator: Any, X: Any) -> Any:
    """The model's decisions for each row of X, as a lazy collection of X's kind.

    A dask array gives a 1-D dask array, a DataFrame or Series a Series (X's index), a bag a
    bag of labels. The model is put in the graph once; each partition's task reads it.

    Examples
    --------
    >>> import dask.array as da, numpy as np
    >>> from bayeskit import MultinomialNB
    >>> from bayeskit.dask import predict
    >>> model = MultinomialNB().fit([[3, 0], [0, 3]], ["a", "b"])
    >>> predict(model, da.from_array(np.array([[2, 1], [0, 5], [4, 0]]), chunks=2)).compute()
    array(['a', 'b', 'a'], dtype='<U1')
    """
    return _lazy(estimator, X, "predict")


def predict_proba(estimator: Any, X: Any) -> Any:
    """Posterior probabilities (n_rows, n_classes) as a lazy collection of X's kind (a
    DataFrame has one column per class; a bag holds one array per row)."""
    return _lazy(estimator, X, "predict_proba")


def predict_log_proba(estimator: Any, X: Any) -> Any:
    """Log posterior probabilities, like :func:`predict_proba`."""
    return _lazy(estimator, X, "predict_log_proba")


def _lazy(estimator: Any, X: Any, method: str) -> Any:
    import dask

    kind = _kind(X)
    classes = np.asarray(estimator.classes_)  # NotFittedError now, not at compute time
    model = dask.delayed(estimator, name=f"bayeskit-model-{uuid.uuid4().hex}", traverse=False)
    per_row = method == "predict"
    if kind == "array":
        if X.ndim == 2 and X.numblocks[1] > 1:
            X = X.rechunk({1: -1})
        if per_row:
            return X.map_blocks(
                _on_block, model, method, classes, drop_axis=list(range(1, X.ndim)),
                dtype=classes.dtype, meta=np.empty(0, dtype=classes.dtype),
            )  # fmt: skip
        return X.map_blocks(
            _on_block, model, method, classes, chunks=(X.chunks[0], (len(classes),)),
            drop_axis=list(range(1, X.ndim)), new_axis=1, dtype=np.float64,
            meta=np.empty((0, 0)),
        )  # fmt: skip
    if kind == "bag":
        return X.map_partitions(_on_documents, model, method, classes)
    import pandas as pd

    if per_row:
        meta: Any = pd.Series(np.empty(0, dtype=classes.dtype), name=method)
    else:
        meta = pd.DataFrame(np.empty((0, len(classes))), columns=classes.tolist())
    return X.map_partitions(_on_frame, model, method, classes, meta=meta)


def _output(estimator: Any, X: Any, method: str, classes: np.ndarray) -> np.ndarray:
    if n_rows(X) == 0:  # the estimators refuse empty input; an empty partition has no rows
        shape = (0,) if method == "predict" else (0, len(classes))
        return np.empty(shape, dtype=classes.dtype if method == "predict" else np.float64)
    return np.asarray(getattr(estimator, method)(X))


def _on_block(
    block: Any, estimator: Any, method: str, classes: np.ndarray, block_info: Any = None
) -> np.ndarray:
    try:
        return _output(estimator, block if block.ndim == 2 else block.tolist(), method, classes)
    except (DataError, InputTypeError) as refused:
        if not block_info:
            raise
        info = block_info[0]  # dask's: where the block lies in X
        raise located(refused, info["chunk-location"][0], info["array-location"][0][0]) from None


def _on_documents(docs: Any, estimator: Any, method: str, classes: np.ndarray) -> list[Any]:
    out = _output(estimator, list(docs), method, classes)
    return out.tolist() if method == "predict" else list(out)


def _on_frame(
    part: Any, estimator: Any, method: str, classes: np.ndarray, partition_info: Any = None
) -> Any:
    import pandas as pd

    X = part.tolist() if part.ndim == 1 else part
    try:
        out = _output(estimator, X, method, classes)
    except (DataError, InputTypeError) as refused:
        if not partition_info:
            raise
        raise located(refused, partition_info["number"], None, part.index) from None
    if method == "predict":
        return pd.Series(out, index=part.index, name=method)
    return pd.DataFrame(out, index=part.index, columns=classes.tolist())
