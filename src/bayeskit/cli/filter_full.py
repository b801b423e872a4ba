"""``bayeskit filter`` by the full model: what the token store declines (a missing or stale
store, a filter it cannot score) is scored here, and the store written again from the model.
Apart from :mod:`.filter_fast` (which needs none of numpy, scikit-learn or typer) and below
:mod:`.filter_cmd` (the command line), so that each imports it and neither the other."""

from __future__ import annotations

import os
from typing import Any

from ..text import token_store
from .mail_headers import ERROR, SCORED_BYTES, UNSURE, fail, message_head, stamped, unsure

__all__ = ["classify_message", "load_filter"]


def classify_message(
    model_path: str, raw: bytes, *, rebuild_store: bool = False
) -> tuple[int, bytes]:
    """(exit status, the message with the verdict headers) for one raw message by the full
    model; the message unchanged with status 3 when it is not one (empty, no header block).
    ``rebuild_store``: the token store was missing or stale, so it is written again from the
    model read here (when no learner holds the lock; see :func:`_rebuild_store`)."""
    head = message_head(raw)
    if head is None:
        return ERROR, raw
    stamp = token_store.model_stamp(model_path) if rebuild_store else None
    model = load_filter(model_path)
    if stamp is not None:
        _rebuild_store(model, model_path, stamp)
    known = _one_class(model)
    if known is not None:
        # Its P(spam) says only the one class it knows (1.0 for a filter that learned spam
        # alone): no score is given beside the Unsure it answers, and the reason is.
        other = "ham" if known == "spam" else "spam"
        fail(
            f"{model_path}: the filter has learned {known} messages only, so it is unsure of "
            f"every message until it learns {other} too (--learn {other})"
        )
        return UNSURE, unsure(raw, head, f"the filter has learned {known} only")
    p_spam = float(model.spam_probability([raw[:SCORED_BYTES]])[0])
    verdict = str(model.verdicts([p_spam])[0])
    return stamped(raw, head, p_spam, verdict)


def _one_class(model: Any) -> str | None:
    """``"spam"`` or ``"ham"`` when ``model`` has learned messages of that class only."""
    only = model.learned_only() if hasattr(model, "learned_only") else None
    if only is None:
        return None
    return "spam" if str(only) == str(model.spam_label) else "ham"  # (labels by their text)


def _rebuild_store(model: Any, model_path: str, stamp: str) -> None:
    """Write the token store of ``model`` (read from ``model_path`` when its stamp was
    ``stamp``), unless a learner holds the lock (it writes the store itself) or the file
    changed since it was read; a failure is reported, never fatal (the store stays stale)."""
    import fcntl

    try:
        fd = os.open(f"{model_path}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        if token_store.model_stamp(model_path) == stamp:
            token_store.rebuild(model, model_path, stamp)
    except OSError:  # a learner holds the lock
        pass
    except Exception as exc:
        fail(f"the token store was not rebuilt ({exc or type(exc).__name__})")
    finally:
        os.close(fd)


def load_filter(path: str) -> Any:
    """The spam filter of the model file ``path`` (a named error for any other model)."""
    from .models import load_model

    model = load_model(path)
    if not (hasattr(model, "classify") and hasattr(model, "spam_probability")):
        raise ValueError(f"{path}: a {type(model).__name__}, not a spam filter (SpamFilter)")
    return model
