"""What the service says about the model it serves: a wrapper (SemiSupervisedNB) served
through the estimator it declares, the page's title and colour legend from the metadata,
messages fit for HTTP (no command-line advice), CSV rows pasted with or without their header.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import bayeskit as bk
from bayeskit.text import TextClassifier, TextVectorizer

from .conftest import AUTH, wine_frame

DOCS = [
    "the striker scored a goal", "a late goal won the match", "the court ruled today",
    "the judge read the ruling", "goal after goal in the match", "the ruling of the court",
    "a match without a goal", "the judge and the court",
]  # fmt: skip
LABELS = ["sport", "sport", "law", "law", None, None, None, None]


def _semi(tmp_path: Path, estimator, X, y, name: str, **params) -> Path:
    model = bk.SemiSupervisedNB(estimator, max_iter=5, **params).fit(X, y)
    path = tmp_path / name
    bk.save(model, path)
    return path


def _table_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.poisson(3, size=(40, 4)).astype(float)
    y = np.where(X[:, 0] > X[:, 1], 1, 0)
    y[10:] = -1  # unlabelled
    return X, y


def _served_wrappers(tmp_path: Path) -> list[tuple[Path, bool]]:
    X, y = _table_data()
    docs_y = np.array(LABELS, dtype=object)
    return [
        (_semi(tmp_path, TextClassifier(), DOCS, docs_y, "text.bk"), True),
        (_semi(tmp_path, bk.MultinomialNB(), X, y, "counts.bk"), False),
        (_semi(tmp_path, bk.GaussianNB(), X, y, "gauss.bk"), False),
        (
            _semi(tmp_path, bk.MultinomialNB(), X, y, "two.bk", n_components=2, random_state=0),
            False,
        ),
    ]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_a_semi_supervised_model_is_served(serve, tmp_path):
    X, _ = _table_data()
    for path, text in _served_wrappers(tmp_path):
        model = bk.load(path)
        client = serve(path)  # with a token: learning is off, and says why
        meta = client.get("/metadata")
        assert meta.status_code == 200, (path.name, meta.text)
        meta = meta.json()
        assert meta["estimator"] == "SemiSupervisedNB"
        assert meta["classes"] == model.classes_.tolist()
        assert meta["mode"] == ("text" if text else "table")
        rows = DOCS[:3] if text else X[:5].tolist()
        r = client.post("/invocations", json={"inputs": rows, "params": {"probabilities": True}})
        assert r.status_code == 200, (path.name, r.text)
        predictions = r.json()["predictions"]
        assert [p["label"] for p in predictions] == model.predict(rows).tolist()
        P = np.array([[p[f"p_{c}"] for c in model.classes_] for p in predictions])
        np.testing.assert_allclose(P, model.predict_proba(rows), rtol=1e-9)
        check = client.post("/check", content=DOCS[0].encode())
        if text:  # the estimator it wraps explains the message; the numbers are the model's
            assert check.status_code == 200, check.text
            got = check.json()
            assert got["label"] == model.predict([DOCS[0]])[0]
            expected = model.predict_proba([DOCS[0]])[0]
            probabilities = [got["probabilities"][str(c)] for c in model.classes_]
            np.testing.assert_allclose(probabilities, expected, rtol=1e-9)
            learn = client.post("/learn/sport", content=b"a goal", headers=AUTH)
            assert learn.status_code == 403
            assert "cannot learn or unlearn one message at a time" in learn.json()["error"]
            assert meta["learning"]["enabled"] is False
        else:
            assert check.status_code == 400
            assert "reads tables, not messages" in check.json()["error"]
        assert client.get("/").status_code == 200


# ------------------------------------------------------------------ the page and its legend
def _title(page: str) -> tuple[str, str]:
    title = re.search(r"<title>(.*?)</title>", page)
    heading = re.search(r"<h1>(.*?)</h1>", page)
    assert title is not None
    assert heading is not None
    return title.group(1), heading.group(1)


def test_the_page_is_titled_for_its_model(serve, sms_file, topics_file, wine_file, numeric_file):
    for path, expected in (
        (sms_file, "bayeskit spam filter"),
        (topics_file, "bayeskit text classifier"),
        (wine_file, "bayeskit classifier"),
        (numeric_file, "bayeskit classifier"),
    ):
        client = serve(path)
        assert _title(client.get("/").text) == (expected, expected)
        assert client.get("/metadata").json()["title"] == expected
        assert "teach the filter" not in client.get("/").text.lower()  # nor is the model one


ANALYZERS = [("word", "words"), ("auto", "words"), ("email", "words"),
             ("char", "characters"), ("char_wb", "characters")]  # fmt: skip


@pytest.mark.parametrize(("analyzer", "colouring"), ANALYZERS)
def test_the_legend_says_what_is_coloured(tmp_path, serve, analyzer, colouring):
    """The metadata's ``colouring`` (what the page's legend reads) is what /check colours:
    words or characters. (The page said a model with the default "auto" analyzer "cannot be
    traced back to the text" above its coloured words.)"""
    model = TextClassifier(vectorizer=TextVectorizer(analyzer=analyzer))
    model.fit(DOCS[:4], LABELS[:4])
    path = tmp_path / "model.bk"
    bk.save(model, path)
    client = serve(path)
    assert client.get("/metadata").json()["colouring"] == colouring
    words = client.post("/check?words=1", content=b"the goal of the court").json()["words"]
    weighted = [text for text, weight in words if weight is not None]
    assert weighted
    if colouring == "characters":
        assert max(len(t.strip()) for t in weighted) <= 1
    else:
        assert {"goal", "court"} <= set(weighted)
    assert "meta.analyzer" not in client.get("/").text  # the legend follows the server


def test_a_callable_analyzer_colours_nothing():
    from bayeskit.serve.colouring import segments, shown_units

    vectorizer = TextVectorizer(analyzer=str.split)
    assert shown_units(vectorizer) is None
    assert all(w is None for _, w in segments(vectorizer, "a goal", {"goal": 1.0}))


# ------------------------------------------------------------------ messages for HTTP
def test_errors_give_no_command_line_advice(serve, wine_file, numeric_file):
    """Wrong columns, in every shape, in random combinations: each error names the columns
    and gives no command-line option (``--ignore``) as a fix."""
    frame, _ = wine_frame()
    client = serve(wine_file)
    rng = random.Random(27)
    option = re.compile(r"(?<![\w-])--[a-z]")
    for _ in range(30):
        columns = list(frame.columns)
        extra = [f"extra_{k}" for k in range(rng.randint(0, 3))]
        dropped = rng.sample(columns, rng.randint(0, 2))
        if not extra and not dropped:
            extra = ["label"]
        chosen = [c for c in columns if c not in dropped] + extra
        rows = [
            {**{c: row[c] for c in chosen if c in row}, **dict.fromkeys(extra, 1)}
            for row in frame.head(2).to_dicts()
        ]
        shape = rng.choice(["dataframe_records", "instances", "dataframe_split", "csv"])
        if shape == "dataframe_split":
            r = client.post(
                "/invocations",
                json={
                    "dataframe_split": {"columns": chosen, "data": [list(x.values()) for x in rows]}
                },
            )
        elif shape == "csv":
            body = pl.DataFrame(rows).write_csv()
            r = client.post("/invocations", content=body, headers={"Content-Type": "text/csv"})
        else:
            r = client.post("/invocations", json={shape: rows})
        assert r.status_code == 400, r.text
        error = r.json()["error"]
        assert not option.search(error), error
        for name in [*dropped, *extra]:
            assert repr(name) in error, (name, error)


# ------------------------------------------------------------------ pasted CSV rows
def test_csv_rows_without_their_header_are_read(serve, wine_file, numeric_file):
    """The same rows, with and without the header line, give the same predictions (a row
    pasted alone is no longer taken for a header: "no rows to predict")."""
    frame, _ = wine_frame()
    model = bk.load(wine_file)
    client = serve(wine_file)
    rng = random.Random(3)
    for _ in range(10):
        rows = frame.sample(rng.randint(1, 4), seed=rng.randrange(10**6))
        with_header = rows.write_csv()
        without = with_header.partition("\n")[2]
        answers = []
        for body in (with_header, without):
            r = client.post("/invocations", content=body, headers={"Content-Type": "text/csv"})
            assert r.status_code == 200, (body, r.text)
            answers.append(r.json()["predictions"])
        assert answers[0] == answers[1] == model.predict(rows).tolist()
    # a matrix model (no column names): the first line is data when it is all numbers
    iris = bk.load(numeric_file)
    client = serve(numeric_file)
    r = client.post("/invocations", content=b"5.1,3.5,1.4,0.2\n6.7,3.0,5.2,2.3\n",
                    headers={"Content-Type": "text/csv"})  # fmt: skip
    assert r.status_code == 200, r.text
    assert (
        r.json()["predictions"]
        == iris.predict([[5.1, 3.5, 1.4, 0.2], [6.7, 3.0, 5.2, 2.3]]).tolist()
    )
    r = client.post("/invocations", content=b"x0,x1,x2,x3\n5.1,3.5,1.4,0.2\n",
                    headers={"Content-Type": "text/csv"})  # fmt: skip
    assert r.json()["predictions"] == iris.predict([[5.1, 3.5, 1.4, 0.2]]).tolist()
    # a header line alone still has no rows, and says so
    r = client.post("/invocations", content=",".join(frame.columns).encode(),
                    headers={"Content-Type": "text/csv"})  # fmt: skip
    assert r.status_code == 400
    assert "no rows to predict" in r.json()["error"]
