"""Re-run the API examples of the third hardening round: each must be refused with a named
``BayeskitError`` or answered (prints NAMED / ANSWER / RAW per case; RAW is a defect).

    PYTHONPATH=src python tools/hardening_examples.py
"""

from __future__ import annotations

import os
import tempfile
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

import bayeskit as bk
from bayeskit.errors import BayeskitError
from bayeskit.text import TextClassifier, TextVectorizer


def check(name: str, call: Callable[[], Any]) -> bool:
    """Run one case; True unless it raised something other than a BayeskitError."""
    try:
        answer = call()
    except BayeskitError as error:
        print(f"NAMED  {name}: {type(error).__name__}: {str(error)[:100]}")
        return True
    except Exception as error:  # the defect this tool looks for
        print(f"RAW    {name}: {type(error).__name__}: {str(error)[:150]}")
        return False
    print(f"ANSWER {name}: {str(answer)[:80]}")
    return True


def main() -> int:
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(40, 3)), np.array([0, 1] * 20)
    docs, labels = ["cash now", "lunch at noon", "cash prize", "noon meeting"] * 3, ["s", "h"] * 6
    text = TextClassifier().fit(docs, labels)
    hashed = TextVectorizer(output="hashed", n_features=64)
    semi = bk.SemiSupervisedNB(bk.GaussianNB()).fit(X, np.where(np.arange(40) < 10, y, -1))
    where = tempfile.mkdtemp()
    bk.save(semi, os.path.join(where, "s.bkm"))
    cases: list[tuple[str, Callable[[], Any]]] = [
        ("text predict(None)", lambda: text.predict(None)),
        ("text predict(5)", lambda: text.predict(5)),
        ("text score, bytes labels", lambda: text.score(docs, [b"x"] * len(docs))),
        ("text score, wrong length", lambda: text.score(docs, labels[:3])),
        (
            "hashed + alpha=0 gives no NaN",
            lambda: (
                not np.isnan(
                    TextClassifier(vectorizer=hashed, model=bk.MultinomialNB(alpha=0))
                    .fit(docs, labels)
                    .predict_proba(["zzz unknown"])
                ).any()
            ),
        ),
        (
            "GMM, weights 1e308",
            lambda: bk.GaussianMixtureClassifier().fit(X, y, sample_weight=np.full(40, 1e308)),
        ),
        (
            "Parzen tophat/cosine/loo on identical rows",
            lambda: (
                bk.ParzenWindowClassifier(
                    kernel="tophat", metric="cosine", bandwidth="loo-likelihood", adaptive=3
                )
                .fit(np.ones((25, 3)), np.array([0, 1] * 12 + [0]))
                .predict(np.ones((2, 3)))
            ),
        ),
        (
            "CategoricalNB on uint64 max",
            lambda: (
                bk.CategoricalNB()
                .fit(np.array([[np.iinfo(np.uint64).max], [1]], dtype=np.uint64), [0, 1])
                .predict(np.array([[1]], dtype=np.uint64))
            ),
        ),
        (
            "CategoricalNB on np.matrix",
            lambda: bk.CategoricalNB().fit(np.matrix([[1, 2], [2, 1]]), [0, 1]).predict([[1, 2]]),
        ),
        ("CategoricalNB, a bytes cell", lambda: bk.CategoricalNB().fit([[b"\xff"], ["a"]], [0, 1])),
        (
            "merge of different alphas",
            lambda: (
                bk.MultinomialNB(alpha=[0.5, 0.5]).fit(np.ones((2, 2)), [0, 1])
                + bk.MultinomialNB(alpha=0.1).fit(np.ones((2, 2)), [0, 1])
            ),
        ),
        ("semi-supervised score, bytes", lambda: semi.score(X, [b"a"] * 40)),
        ("semi-supervised score, wrong length", lambda: semi.score(X, y[:3])),
        ("semi-supervised score, None", lambda: semi.score(X, None)),
        (
            "semi-supervised fit, empty object labels",
            lambda: bk.SemiSupervisedNB(bk.GaussianNB()).fit(X[:0], np.array([], dtype=object)),
        ),
        (
            "semi-supervised fit, pandas <NA> labels",
            lambda: (
                bk.SemiSupervisedNB(bk.GaussianNB())
                .fit(X, pd.array(["a", "b"] * 19 + [pd.NA, pd.NA], dtype="string"))
                .predict(X[:2])
            ),
        ),
        (
            "save as .pkl",
            lambda: bk.save(bk.GaussianNB().fit(X, y), os.path.join(where, "model.pkl")),
        ),
        (
            "semi-supervised n_features_in_ after load",
            lambda: bk.load(os.path.join(where, "s.bkm")).n_features_in_,
        ),
    ]
    return 0 if all([check(name, call) for name, call in cases]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
