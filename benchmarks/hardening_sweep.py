"""Sweep issue 10's classes of failure and count them: extreme numbers, malformed inputs and
mutated model files, through every estimator, with the same generators as the test suite
(seeded, so two versions of bayeskit meet the same cases).

Usage (from the project root)::

    python benchmarks/hardening_sweep.py                  # 1000 numbers, all inputs, 1000 files
    python benchmarks/hardening_sweep.py --cases 200

To count an older version, put its ``src`` first on the path, e.g.::

    git archive main src | tar -x -C /tmp/old && PYTHONPATH=/tmp/old/src \\
        python benchmarks/hardening_sweep.py

A case fails when a call raises anything but a BayeskitError (or a multi-line one), when
probabilities are NaN or do not sum to 1 within 1e-9, when unlearning every row is accepted,
when a refused call changes the model, or when a saved model does not load.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import pathlib
import sys
import tempfile
import warnings
from typing import Any

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import bayeskit as bk
from bayeskit.errors import BayeskitError, ModelFileError

SCALES = [5e-324, 1e-308, 1e-300, 1e-150, 1e-10, 1.0, 1e10, 1e150, 1e300, 1e308]


def _finite(P: np.ndarray) -> bool:
    return bool(np.isfinite(P).all() and np.allclose(P.sum(axis=1), 1, rtol=0, atol=1e-9))


def numbers(n_cases: int, tmp: pathlib.Path) -> collections.Counter[str]:
    from tests._grid import CASES, Case, reals

    cases = [*CASES, Case("MixedNB", bk.MixedNB, reals)]
    rng0 = np.random.default_rng(100)
    out: collections.Counter[str] = collections.Counter()
    for _ in range(n_cases):
        case = cases[rng0.integers(len(cases))]
        rng = np.random.default_rng(rng0.integers(1 << 30))
        n, d = int(rng.integers(2, 25)), int(rng.integers(1, 4))
        X = case.data(rng, n, d)
        y = np.array(["a", "b", "c"])[rng.integers(0, int(rng.integers(1, 4)), n)]
        mode = rng.integers(3)
        w = None
        if mode in (0, 2):
            w = rng.choice(SCALES, size=n) if rng.random() < 0.5 else np.full(n, rng.choice(SCALES))
        scalable = not case.name.startswith(("Binomial", "Bernoulli", "Categorical"))
        if mode in (1, 2) and X.dtype.kind == "f" and scalable:
            X = np.where(rng.random(X.shape) < 0.3, X * rng.choice(SCALES, size=X.shape), X)
        out[_numbers_case(case.make(), X, y, w, tmp)] += 1
    return out


def _numbers_case(model: Any, X: Any, y: Any, w: Any, tmp: pathlib.Path) -> str:
    try:
        model.fit(X, y, sample_weight=w)
    except BayeskitError:
        return "refused by name"
    except Exception as exc:
        return f"FAIL fit: {type(exc).__name__}"
    try:
        P = model.predict_proba(X)
        if not _finite(P):
            return "FAIL NaN or probabilities not summing to 1"
        bk.save(model, tmp / "m.bkm")
        if not np.allclose(bk.load(tmp / "m.bkm").predict_proba(X), P):
            return "FAIL loaded model differs"
    except BayeskitError as exc:
        return f"FAIL fitted model refuses its own rows or file ({type(exc).__name__})"
    except Exception as exc:
        return f"FAIL predict/save/load: {type(exc).__name__}"
    try:
        model.unlearn(X, y, sample_weight=w)
        return "FAIL unlearning every row accepted"
    except BayeskitError:
        pass
    except Exception as exc:
        return f"FAIL unlearn: {type(exc).__name__}"
    if not np.array_equal(model.predict_proba(X), P):
        return "FAIL refused unlearn changed the model"
    return "finite"


def inputs() -> collections.Counter[str]:
    import bayeskit.errors as errors

    if not hasattr(errors, "SaveError"):  # older versions: let the test module import
        errors.SaveError = type("SaveError", (errors.BayeskitError, OSError), {})  # type: ignore[attr-defined]
    from tests._grid import ESTIMATORS
    from tests.test_user_mistakes import _labels, _malformed

    Xs, ys = _malformed().elements, _labels().elements  # type: ignore[attr-defined]
    out: collections.Counter[str] = collections.Counter()

    def run(call: Any) -> str:
        try:
            result = call()
        except BayeskitError as exc:
            return "FAIL multi-line message" if "\n" in str(exc) else "refused by name"
        except Exception as exc:
            return f"FAIL {type(exc).__name__}"
        if isinstance(result, np.ndarray) and not np.isfinite(result).all():
            return "FAIL NaN"
        return "accepted"

    for cls in ESTIMATORS:
        for X, y in itertools.product(Xs, ys):
            model = cls()
            outcome = run(lambda: model.fit(X, y))  # noqa: B023
            out[outcome] += 1
            if "stats_" in model.__dict__:
                for Xp in Xs:
                    out[run(lambda: model.predict_proba(Xp))] += 1  # noqa: B023
    return out


def files(n_cases: int, tmp: pathlib.Path) -> collections.Counter[str]:
    import random

    import tests.io.test_hostile_files as t

    rnd = random.Random(0)
    base = {}
    for name, (make, X) in t.MODELS.items():
        path = tmp / f"{name}.bkm"
        bk.save(make().fit(X, t.Y), path)
        base[name] = t.parts(path)
    out: collections.Counter[str] = collections.Counter()
    for _ in range(n_cases):
        name = rnd.choice(sorted(t.MODELS))
        meta, entries = dict(base[name][0]), dict(base[name][1])
        for _ in range(rnd.randint(1, 3)):
            kind, pick = (
                rnd.choice(["meta", "meta", "array", "array", "entry"]),
                rnd.randint(0, 10**6),
            )
            if kind == "meta":
                where = t._paths(meta)
                meta = t._set(meta, where[pick % len(where)], t._ODD[pick % len(t._ODD)])
            elif kind == "array":
                key = sorted(entries)[pick % len(entries)]
                entries[key] = t._mutate_array(entries[key], pick)
            else:
                key = sorted(entries)[pick % len(entries)]
                entries[key] = t.npy_header("<f8", (1 << 40,)) if pick % 2 else entries[key][:20]
        if not isinstance(meta, dict):
            meta = {"format": meta}
        path = tmp / "m.bkm"
        t.seal(path, meta, entries)
        try:
            model = bk.load(path)
        except ModelFileError:
            out["refused by name"] += 1
            continue
        except Exception as exc:
            out[f"FAIL load: {type(exc).__name__}"] += 1
            continue
        try:
            ok = _finite(model.predict_proba(t.MODELS[name][1]))
            out["loaded, finite" if ok else "FAIL loaded, predicts NaN"] += 1
        except BayeskitError as exc:
            # Statistics a stream may save (fewer rows than features): loaded, and prediction
            # refuses them by name. Any other refusal of a loaded model is a failure.
            singular = type(exc).__name__ == "SingularCovarianceError"
            out[
                "loaded, singular covariance refused by name"
                if singular
                else f"FAIL loaded, then {type(exc).__name__}"
            ] += 1
        except Exception as exc:
            out[f"FAIL loaded, then {type(exc).__name__}"] += 1
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    np.seterr(all="ignore")
    print(f"# bayeskit {bk.__version__} from {pathlib.Path(bk.__file__).parent}\n")
    with tempfile.TemporaryDirectory() as folder:
        tmp = pathlib.Path(folder)
        for title, counts in (
            ("extreme numbers", numbers(args.cases, tmp)),
            ("malformed inputs", inputs()),
            ("mutated model files", files(args.cases, tmp)),
        ):
            total = sum(counts.values())
            failing = sum(v for k, v in counts.items() if k.startswith("FAIL"))
            print(f"## {title}: {total} cases, {failing} failing")
            for outcome, count in counts.most_common():
                print(f"- {count} {outcome}")
            print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
