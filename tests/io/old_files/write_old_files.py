"""How the files beside this script were written (not a test): run under an earlier bayeskit,
``git archive REV src | tar -x -C /tmp/bk-REV`` then
``PYTHONPATH=/tmp/bk-REV/src python write_old_files.py OUT``, it fits each model of that
version on small generated tables (seeded; no real data), saves ``OUT/<model>.bk`` and prints
its probabilities and labels for ``expected.json``'s ``inputs`` (the file names there start
with the commit that wrote them)."""

import json
import sys

import numpy as np

import bayeskit as bk

rng = np.random.default_rng(12345)
y = np.array(["a", "b", "c"] * 20)
yi = np.array([0, 1, 2] * 20)
counts = rng.poisson(2 + (yi[:, None] == np.arange(5) % 3), size=(60, 5)).astype(float)
counts_t = rng.poisson(2, size=(7, 5)).astype(float)
binary, binary_t = (counts > 2).astype(float), (counts_t > 2).astype(float)
gauss = rng.normal(size=(60, 3)) + yi[:, None] * 0.8
gauss_t = rng.normal(size=(7, 3)) + 0.5
cats = rng.integers(0, 3, size=(60, 4))
cats[:, 0] = (yi + rng.integers(0, 2, 60)) % 3
cats_t = rng.integers(0, 3, size=(7, 4))
mixed = np.column_stack([gauss[:, :2], cats[:, :2]])
mixed_t = np.column_stack([gauss_t[:, :2], cats_t[:, :2]])
words = ["cheap", "pills", "meeting", "report", "win", "money", "lunch", "project", "free"]
words += ["offer"]
docs = [
    " ".join(rng.choice(words[(k % 2) * 5 : (k % 2) * 5 + 5] + words[:2], size=8))
    for k in range(40)
]
ydocs = np.array(["spam" if k % 2 == 0 else "ham" for k in range(40)])
docs_t = ["cheap pills win", "meeting report lunch", "free offer project", "money money", "x"]
ysemi = yi.copy()
ysemi[::3] = -1
text = {"vectorizer": "TextVectorizer", "model": "MultinomialNB"}  # explicit settings
CASES = {  # name: (class, settings, X, y, test rows)
    "MultinomialNB_alpha": ("MultinomialNB", {"alpha": 0.3}, counts, y, counts_t),
    "CategoricalNB": ("CategoricalNB", {}, cats, y, cats_t),
    "PoissonNB": ("PoissonNB", {}, counts, y, counts_t),
    "GaussianNB": ("GaussianNB", {}, gauss, y, gauss_t),
    "MixedNB": ("MixedNB", {}, mixed, y, mixed_t),
    "DiscretizedNB": ("DiscretizedNB", {}, gauss, y, gauss_t),
    "KernelNB": ("KernelNB", {}, gauss, y, gauss_t),
    "LinearDiscriminantAnalysis": ("LinearDiscriminantAnalysis", {}, gauss, y, gauss_t),
    "GaussianMixtureClassifier": (
        "GaussianMixtureClassifier",
        {"n_components": 2, "random_state": 0},
        gauss,
        y,
        gauss_t,
    ),
    "ParzenWindowClassifier": ("ParzenWindowClassifier", {}, gauss, y, gauss_t),
    "TANClassifier": ("TANClassifier", {}, cats, y, cats_t),
    "SemiSupervisedNB": ("SemiSupervisedNB", {"estimator": "GaussianNB"}, gauss, ysemi, gauss_t),
    "TextClassifier": ("TextClassifier", {}, docs, ydocs, docs_t),
    "TextClassifier_explicit": ("TextClassifier", text, docs, ydocs, docs_t),
    "SpamFilter_explicit": ("SpamFilter", text, docs, ydocs, docs_t),
}


def find(name: str) -> type:
    import importlib

    for where in ("bayeskit", "bayeskit.mixture", "bayeskit.parzen", "bayeskit.text"):
        found = getattr(importlib.import_module(where), name, None)
        if found is not None:
            return found
    raise AttributeError(name)


if __name__ == "__main__":
    for case, (name, settings, X, labels, rows) in CASES.items():
        try:
            nested = ("vectorizer", "model", "estimator")  # estimators named by class
            kw = {k: find(v)() if k in nested else v for k, v in settings.items()}
            model = find(name)(**kw).fit(X, labels)
        except (AttributeError, ImportError, TypeError):
            continue  # not in this version
        bk.save(model, f"{sys.argv[1]}/{case}.bk")
        print(case, json.dumps(np.asarray(model.predict_proba(rows)).tolist()))
        print(case, json.dumps(np.asarray(model.predict(rows)).astype(str).tolist()))
