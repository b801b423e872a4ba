"""The HTTP API through Starlette's TestClient: the model's own numbers, MLflow's contract,
the spam API, learning with a token, and every bad input (a 4xx JSON error, still serving)."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

import bayeskit as bk

from .conftest import AUTH, HAMMY, SPAMMY, wine_frame


def test_ping_health_version_metadata(serve, sms_file, sms_filter):
    client = serve(sms_file)
    assert client.get("/ping").status_code == 200
    health = client.get("/health").json()
    assert health["status"] == "ok"
    assert health["seq"] == 0
    assert client.get("/version").json()["bayeskit"] == bk.__version__
    meta = client.get("/metadata").json()
    assert meta["estimator"] == "SpamFilter"
    assert meta["mode"] == "text"
    assert meta["classes"] == ["ham", "spam"]
    assert meta["class_count"] == {"ham": 4827.0, "spam": 747.0}
    assert meta["training_rows"] == 5574.0
    assert meta["families"] == ["multinomial"]
    assert meta["vocabulary_size"] == len(sms_filter.get_feature_names_out())
    assert meta["spam"]["lost_ham_cost"] == 5.0
    assert meta["learning"]["enabled"] is True
    assert meta["model_file"] == "sms.bk"  # its name, never the server's folders


def test_metadata_reports_the_servers_limits(serve, sms_file):
    meta = serve(sms_file, max_in_flight=7, max_body_bytes=5000, timeout=3.5).get("/metadata")
    assert meta.json()["limits"] == {
        "max_body_bytes": 5000,
        "max_header_bytes": 65536,
        "max_json_depth": 32,
        "max_in_flight": 7,
        "timeout": 3.5,
    }


def test_metadata_of_a_table_model(serve, wine_file):
    meta = serve(wine_file).get("/metadata").json()
    frame, _ = wine_frame()
    assert meta["mode"] == "table"
    assert meta["features"] == frame.columns
    assert meta["families"]["strength"] == "categorical"
    # Every column's family as the model chose it (numeric="auto" picks one per column).
    assert meta["families"] == bk.load(wine_file).feature_families_


# ---------------------------------------------------------------------------------- /check
def test_check_is_the_models_decision(serve, sms_file, sms_filter, sms):
    client = serve(sms_file)
    texts = [SPAMMY, HAMMY, *sms[0][:60], "free", "call me", ""]
    expected_p = sms_filter.spam_probability(texts)
    verdicts = sms_filter.classify(texts)
    labels = sms_filter.predict(texts)
    actions = set()
    for text, p, verdict, label in zip(texts, expected_p, verdicts, labels, strict=True):
        r = client.post("/check", content=text.encode(), headers={"Content-Type": "text/plain"})
        assert r.status_code == 200, r.text
        got = r.json()
        np.testing.assert_allclose(got["p_spam"], p, rtol=1e-12, atol=1e-15)
        assert got["verdict"] == verdict
        assert got["label"] == label
        expected_action = (
            "review" if verdict == "unsure" else {"spam": "junk", "ham": "deliver"}[label]
        )
        assert got["action"] == expected_action
        actions.add(got["action"])
        why = sms_filter.explain(text, label="spam", versus="ham")
        np.testing.assert_allclose(got["log_odds"], why.log_odds, rtol=1e-12, atol=1e-12)
        assert got["log_odds_of"] == ["spam", "ham"]
        top = why.top(len(got["reasons"]))
        assert [r["token"] for r in got["reasons"]] == [c.feature for c in top]
        np.testing.assert_allclose(
            [r["weight"] for r in got["reasons"]], [c.weight for c in top], rtol=1e-12, atol=1e-12
        )
    assert actions == {"junk", "deliver", "review"}  # the data exercise all three


def test_check_colours_every_scored_word(serve, sms_file, sms_filter):
    text = "FREE entry!! Call 08001234 now to claim your prize, free Free."
    got = serve(sms_file).post("/check?words=1", content=text).json()
    pieces = got["words"]
    assert "".join(p[0] for p in pieces) == text  # the message, cut but complete
    coloured = [(t, w) for t, w in pieces if w is not None]
    assert [t for t, _ in coloured][:2] == ["FREE", "entry"]
    # the occurrences of a term share its contribution: they add up to explain's numbers
    by_term: dict[str, float] = {}
    for t, w in coloured:
        by_term[t.lower()] = by_term.get(t.lower(), 0.0) + w
    why = {c.feature: c.weight for c in sms_filter.explain(text, label="spam").contributions}
    assert by_term.keys() == why.keys()
    for term, weight in why.items():
        assert by_term[term] == pytest.approx(weight, rel=1e-9, abs=1e-12)


def test_check_raw_email(serve, email_file):
    client = serve(email_file)
    model = bk.load(email_file)
    message = (
        b"From: Prize <win@lottery.example>\nSubject: FREE prize\nContent-Type: text/plain; "
        b"charset=iso-8859-1\n\nClaim your free cash prize now \xe9t\xe9"
    )
    r = client.post("/check?words=1", content=message, headers={"Content-Type": "message/rfc822"})
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["p_spam"] == pytest.approx(model.spam_probability([message])[0], rel=1e-12)
    assert got["verdict"] == model.classify([message])[0]
    assert any(r["token"] == "subject:free" for r in got["reasons"])
    shown = "".join(p[0] for p in got["words"])
    assert shown.startswith("Subject: FREE prize\n\n")
    assert "été" in shown  # decoded with the part's charset
    assert any(t == "free" and w is not None for t, w in got["words"])


# ---------------------------------------------------------------------------------- /verdict
def _verdict(client, body: bytes, content_type: str = "text/plain") -> tuple[str, float]:
    r = client.post("/verdict", content=body, headers={"Content-Type": content_type})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    word, p = r.text.split()
    assert r.text == f"{word} {float(p)!r}\n"  # one line: the verdict, the float's repr
    return word, float(p)


def _same_as_check(client, bodies: list[bytes], content_type: str) -> None:
    """/verdict answers /check's verdict and P(spam) (to rounding) for every body."""
    cutoffs = client.get("/metadata").json()["spam"]
    for body in bodies:
        check = client.post("/check", content=body, headers={"Content-Type": content_type})
        expected = check.json()
        word, p = _verdict(client, body, content_type)
        assert p == pytest.approx(expected["p_spam"], rel=1e-9, abs=1e-12)
        if min(abs(p - cutoffs["ham_cutoff"]), abs(p - cutoffs["spam_cutoff"])) > 1e-9:
            assert word == expected["verdict"]


def test_verdict_is_checks_answer_in_one_line(serve, sms_file, char_file, sms):
    """``POST /verdict`` (what ``bayeskit filter --server`` asks) answers /check's verdict
    and P(spam): by the token store's arithmetic on a table built on the first request of
    each snapshot (so again after a learn), or by /check's own scoring for a filter the store
    cannot score (character n-grams)."""
    texts = [SPAMMY, HAMMY, *sms[0][:30], "", "free", "Grüße, café"]
    bodies = [text.encode() for text in texts]
    for path in (sms_file, char_file):
        client = serve(path)
        _same_as_check(client, bodies, "text/plain")
        assert client.post("/learn/spam", content=HAMMY, headers=AUTH).status_code == 200
        _same_as_check(client, bodies[:10], "text/plain")


def test_verdict_of_raw_emails(serve, email_file):
    client = serve(email_file)
    model = bk.load(email_file)
    messages = [
        b"From: Prize <win@lottery.example>\nSubject: FREE prize\nContent-Type: text/plain; "
        b"charset=iso-8859-1\n\nClaim your free cash prize now \xe9t\xe9",
        b"From: Ann <ann@work.example>\nSubject: notes\n\nthe notes of today's meeting",
        b"Subject: empty\n\n",
    ]
    _same_as_check(client, messages, "message/rfc822")
    for message in messages:
        word, p = _verdict(client, message, "message/rfc822")
        assert p == pytest.approx(model.spam_probability([message])[0], rel=1e-9)
        assert word == model.classify([message])[0]


def test_verdict_needs_a_spam_filter(serve, topics_file, wine_file):
    r = serve(topics_file).post("/verdict", content="the striker scored")
    assert r.status_code == 400
    assert "TextClassifier) is not a spam filter: use POST /check" in r.json()["error"]
    r = serve(wine_file).post("/verdict", content="hello")
    assert r.status_code == 400
    assert "/invocations" in r.json()["error"]


def test_check_of_a_text_classifier_with_three_classes(serve, topics_file):
    model = bk.load(topics_file)
    got = serve(topics_file).post("/check", content="a goal in the match").json()
    assert got["verdict"] == got["label"] == model.predict(["a goal in the match"])[0] == "sport"
    assert "p_spam" not in got
    assert got["probabilities"] == pytest.approx(
        dict(zip(model.classes_, model.predict_proba(["a goal in the match"])[0], strict=True)),
        rel=1e-12,
    )


# ---------------------------------------------------------------------------------- /invocations
def _shapes(frame: pl.DataFrame) -> dict[str, object]:
    rows = frame.rows()
    return {
        "dataframe_split": {"columns": frame.columns, "data": rows},
        "dataframe_records": frame.to_dicts(),
        "instances": frame.to_dicts(),
        "inputs": frame.to_dict(as_series=False),
    }


def test_invocations_table_model_every_shape(serve, wine_file):
    client = serve(wine_file)
    model = bk.load(wine_file)
    frame, _ = wine_frame()
    frame = frame[::7]
    expected_p = model.predict_proba(frame)
    expected = model.predict(frame).tolist()
    for shape, value in _shapes(frame).items():
        r = client.post("/invocations", json={shape: value})
        assert r.status_code == 200, (shape, r.text)
        assert r.json() == {"predictions": expected}
        r = client.post("/invocations", json={shape: value, "params": {"probabilities": True}})
        rows = r.json()["predictions"]
        got = np.array([[row[f"p_{c}"] for c in model.classes_] for row in rows])
        assert np.array_equal(got, expected_p), shape  # the same float64 numbers, exactly
        assert [row["label"] for row in rows] == expected
    # columns in another order are matched by name
    shuffled = frame.select(list(reversed(frame.columns)))
    r = client.post("/invocations", json={"dataframe_records": shuffled.to_dicts()})
    assert r.json() == {"predictions": expected}
    r = client.post(
        "/invocations?probabilities=true",
        content=frame.write_csv(),
        headers={"Content-Type": "text/csv"},
    )
    got = np.array([[row[f"p_{c}"] for c in model.classes_] for row in r.json()["predictions"]])
    np.testing.assert_allclose(got, expected_p, rtol=1e-12)  # CSV text is rounded by polars


def test_invocations_matrix_model(serve, numeric_file):
    from sklearn.datasets import load_iris

    X, _ = load_iris(return_X_y=True)
    model = bk.load(numeric_file)
    client = serve(numeric_file)
    rows = X[::10].tolist()
    for shape in ("instances", "inputs"):
        r = client.post("/invocations", json={shape: rows, "params": {"probabilities": True}})
        assert r.status_code == 200, r.text
        got = np.array([[row[f"p_{c}"] for c in model.classes_] for row in r.json()["predictions"]])
        assert np.array_equal(got, model.predict_proba(np.array(rows)))
    r = client.post("/invocations", json={"dataframe_split": {"data": rows}})
    assert r.json()["predictions"] == model.predict(np.array(rows)).tolist()
    r = client.post("/invocations", json={"instances": [row[:3] for row in rows]})
    assert r.status_code == 400
    assert "row 1 has 3 values; the model reads 4 columns" in r.json()["error"]


def test_invocations_text_model(serve, sms_file, sms_filter, sms):
    client = serve(sms_file)
    texts = sms[0][:25]
    expected = sms_filter.predict_proba(texts)
    for payload in (
        {"inputs": texts},
        {"instances": texts},
        {"dataframe_split": {"columns": ["text"], "data": [[t] for t in texts]}},
        {"dataframe_records": [{"message": t} for t in texts]},
    ):
        r = client.post("/invocations", json={**payload, "params": {"probabilities": True}})
        assert r.status_code == 200, r.text
        rows = r.json()["predictions"]
        assert np.array_equal([[row["p_ham"], row["p_spam"]] for row in rows], expected)
        assert [row["verdict"] for row in rows] == sms_filter.classify(texts).tolist()
        assert [row["label"] for row in rows] == sms_filter.predict(texts).tolist()


# ---------------------------------------------------------------------------------- learning
def test_learning_changes_the_model_and_unlearning_restores_it(serve, sms_file, sms_filter):
    client = serve(sms_file)
    service = client.app.service
    before = service.state.snapshot
    p0 = client.post("/check", content=HAMMY).json()["p_spam"]
    r = client.post("/learn/spam", content=HAMMY, headers=AUTH)
    assert r.status_code == 200, r.text
    learned = r.json()
    assert learned["learned"] is True
    assert learned["seq"] == 1
    assert learned["class_count"] == {"ham": 4827.0, "spam": 748.0}
    p1 = client.post("/check", content=HAMMY).json()
    assert p1["p_spam"] > p0
    assert p1["learned_as"] == "spam"
    # the same message again: reported, not counted twice
    again = client.post("/learn/spam", content=HAMMY, headers=AUTH).json()
    assert again["duplicate"] is True
    assert again["learned"] is False
    assert again["class_count"] == {"ham": 4827.0, "spam": 748.0}
    # bogofilter's -Sn: learned as spam, now ham, in one call
    moved = client.post("/learn/ham", content=HAMMY, headers=AUTH).json()
    assert moved["was"] == "spam"
    assert moved["class_count"] == {"ham": 4828.0, "spam": 747.0}
    gone = client.post("/unlearn/ham", content=HAMMY, headers=AUTH).json()
    assert gone["unlearned"] is True
    p_back = client.post("/check", content=HAMMY).json()
    assert p_back["p_spam"] == pytest.approx(p0, rel=1e-9)
    assert p_back["learned_as"] is None
    after = service.state.snapshot.model
    np.testing.assert_allclose(
        after.predict_proba([SPAMMY, HAMMY]), sms_filter.predict_proba([SPAMMY, HAMMY]), rtol=1e-9
    )
    # copy on write: the snapshot a reader held before is the model it was
    assert np.array_equal(before.model.predict_proba([HAMMY]), sms_filter.predict_proba([HAMMY]))


def test_learned_messages_survive_a_restart(serve, sms_file, model_copy, token_file):
    path = model_copy(sms_file)
    first = serve(path, copy=False)
    for i in range(5):
        assert (
            first.post(
                f"/learn/{['ham', 'spam'][i % 2]}", content=f"m{i} {SPAMMY}", headers=AUTH
            ).status_code
            == 200
        )
    expected = first.post("/check", content="m1 " + SPAMMY).json()
    first.__exit__(None, None, None)  # a clean stop saves the model file
    on_disk = bk.load(path)
    assert on_disk.class_count_.tolist() == [4827.0 + 3, 747.0 + 2]
    second = serve(path, copy=False)
    again = second.post("/check", content="m1 " + SPAMMY).json()
    assert again == expected
    assert second.post("/learn/spam", content="m1 " + SPAMMY, headers=AUTH).json()["duplicate"]


def test_learn_needs_the_token(serve, sms_file):
    client = serve(sms_file)
    for headers in (
        {},
        {"Authorization": "Bearer wrong-token-0000000"},
        {"Authorization": "Basic x"},
    ):
        r = client.post("/learn/spam", content=SPAMMY, headers=headers)
        assert r.status_code == 401
        assert r.headers["www-authenticate"].startswith("Bearer")
        assert "token" in r.json()["error"]
    assert client.get("/health").json()["seq"] == 0


def test_two_authorization_headers_are_refused(serve, sms_file):
    """The first was read and any other ignored; the field is sent once (RFC 9110)."""
    client = serve(sms_file)
    token = AUTH["Authorization"]
    for pair in ((token, "Bearer wrong"), ("Bearer wrong", token), (token, token)):
        r = client.post("/learn/spam", content=SPAMMY, headers=[("Authorization", v) for v in pair])
        assert r.status_code == 400
        assert r.json() == {"error": "the request has 2 Authorization headers; send one"}
    assert client.get("/health").json()["seq"] == 0
    assert client.post("/learn/spam", content=SPAMMY, headers=AUTH).status_code == 200


def test_without_a_token_learning_is_off_and_says_so(serve, sms_file):
    client = serve(sms_file, token=False)
    r = client.post("/learn/spam", content=SPAMMY, headers=AUTH)
    assert r.status_code == 403
    assert r.json()["error"] == (
        "learning is off: this server was started without --token-file, so nothing can change "
        "the model. Checks and predictions work as usual; to learn, restart it with "
        "--token-file FILE"
    )
    meta = client.get("/metadata").json()
    assert meta["learning"]["enabled"] is False
    assert client.post("/check", content=SPAMMY).status_code == 200


def test_several_workers_refuse_learning_and_say_why(serve, sms_file, tmp_path):
    """Each of N worker processes runs this app: each refuses learning, saying why and what
    to do, and writes nothing beside the model."""
    client = serve(sms_file, workers=3)
    expected = (
        "learning is off: it runs 3 worker processes, each with its own copy of the model, so a "
        "message learned by one would be missing from the others' answers. Checks and "
        "predictions work as usual; to learn, restart it with --workers 1"
    )
    for path, headers in (("/learn/spam", AUTH), ("/unlearn/ham", AUTH), ("/learn/spam", {})):
        r = client.post(path, content=SPAMMY, headers=headers)
        assert r.status_code == 403
        assert r.json() == {"error": expected}
    learning = client.get("/metadata").json()["learning"]
    assert learning["enabled"] is False
    assert learning["reason"] == expected  # what the page shows beside its disabled buttons
    assert client.post("/check", content=SPAMMY).json()["verdict"] == "spam"
    assert sorted(p.name for p in (tmp_path / "served").iterdir()) == ["sms.bk"]
    # both reasons at once: no token, several workers
    r = serve(sms_file, token=False, workers=2).post("/learn/spam", content=SPAMMY, headers=AUTH)
    assert r.status_code == 403
    error = r.json()["error"]
    assert error.startswith("learning is off: this server was started without --token-file")
    assert "; and it runs 2 worker processes" in error
    assert error.endswith("restart it with --token-file FILE and --workers 1")


# ---------------------------------------------------------------------------------- bad input
BAD_INVOCATIONS = [
    (b"{not json", "application/json", 400, "malformed JSON"),
    (b"[1, 2]", "application/json", 400, "must be an object"),
    (b'{"rows": []}', "application/json", 400, "exactly one of dataframe_split"),
    (b'{"inputs": [], "instances": []}', "application/json", 400, "exactly one of"),
    (b'{"dataframe_split": {"columns": ["a"]}}', "application/json", 400, "dataframe_split must"),
    (b'{"dataframe_records": [1, 2]}', "application/json", 400, "list of objects"),
    (b'{"inputs": {"a": [1], "b": [1, 2]}}', "application/json", 400, "numbers of values"),
    (b'{"inputs": [1]}', "application/json", 400, "row 1"),
    (b'{"inputs": [[1]], "params": {"probabilities": 1}}', "application/json", 400, "true or"),
    (b"\xff\xfe{}", "application/json", 400, "not valid utf-8"),
    (b"a,b\n1,2", "application/xml", 415, "not accepted"),
    (b'{"instances": [{"alcohol": 1}]}', "application/json", 400, "missing"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "content_type", "status", "says"), BAD_INVOCATIONS)
def test_bad_invocations(serve, wine_file, body, content_type, status, says):
    client = serve(wine_file)
    r = client.post("/invocations", content=body, headers={"Content-Type": content_type})
    assert r.status_code == status, r.text
    assert says in r.json()["error"]
    assert client.get("/ping").status_code == 200


def test_wrong_columns_are_named(serve, wine_file):
    client = serve(wine_file)
    frame, _ = wine_frame()
    records = frame.rename({"alcohol": "alcool"}).head(2).to_dicts()
    error = client.post("/invocations", json={"dataframe_records": records}).json()["error"]
    assert "'alcohol'" in error
    assert "'alcool'" in error
    split = {"columns": frame.columns[:-1], "data": [r[:-1] for r in frame.head(2).rows()]}
    error = client.post("/invocations", json={"dataframe_split": split}).json()["error"]
    assert "missing 'strength'" in error
    split = {"columns": frame.columns, "data": [r[:-1] for r in frame.head(2).rows()]}
    error = client.post("/invocations", json={"dataframe_split": split}).json()["error"]
    assert "row 1 of data does not have one value for each of the 14 columns" in error
    bad = frame.head(1).with_columns(pl.lit("lots").alias("alcohol")).to_dicts()
    error = client.post("/invocations", json={"instances": bad}).json()["error"]
    assert "column 'alcohol' holds 'lots'" in error
    r = client.post("/invocations", content=b"a,b\n1", headers={"Content-Type": "text/csv"})
    assert r.status_code == 400


def test_body_size_limit(serve, sms_file):
    client = serve(sms_file, max_body_bytes=1000)
    assert client.post("/check", content=b"x" * 1000).status_code == 200
    r = client.post("/check", content=b"x" * 1001)
    assert r.status_code == 413
    assert "at most 1000" in r.json()["error"]

    def chunks():  # no Content-Length: the limit holds while reading
        for _ in range(20):
            yield b"y" * 100

    r = client.post("/check", content=chunks())
    assert r.status_code == 413
    r = client.post("/learn/spam", content=b"z" * 5000, headers=AUTH)
    assert r.status_code == 413
    assert client.get("/health").json()["seq"] == 0
    assert client.post("/invocations", content=b"[" * 2000).status_code == 413


def test_bad_messages_and_labels(serve, sms_file, sms_filter):
    client = serve(sms_file)
    r = client.post("/check", content=b"caf\xe9 au lait", headers={"Content-Type": "text/plain"})
    assert r.status_code == 400
    assert "byte 0xe9 at offset 3" in r.json()["error"]
    latin = client.post(
        "/check", content=b"caf\xe9", headers={"Content-Type": "text/plain; charset=latin-1"}
    )
    assert latin.status_code == 200
    r = client.post("/check", content=b"x", headers={"Content-Type": "text/plain; charset=klingon"})
    assert r.status_code == 415
    r = client.post("/check", content=b"{}", headers={"Content-Type": "application/json"})
    assert r.status_code == 415
    r = client.post("/learn/eggs", content=SPAMMY, headers=AUTH)
    assert r.status_code == 400
    assert r.json()["error"] == "unknown label 'eggs'; this model's labels are 'ham', 'spam'"
    r = client.post("/unlearn/spam", content="never learned here", headers=AUTH)
    assert r.status_code == 409
    assert "never learned" in r.json()["error"]
    assert "unchanged" in r.json()["error"]
    model = client.app.service.state.snapshot.model
    assert np.array_equal(model.predict_proba([SPAMMY]), sms_filter.predict_proba([SPAMMY]))
    assert client.get("/health").json()["seq"] == 0


def test_table_model_has_no_check(serve, wine_file):
    client = serve(wine_file)
    r = client.post("/check", content="hello")
    assert r.status_code == 400
    assert "/invocations" in r.json()["error"]
    learn = client.post("/learn/0", content="x", headers=AUTH)
    assert learn.status_code == 403  # learning is off for a table model, even with a token
    assert "reads table rows" in learn.json()["error"]


def test_unknown_paths_and_methods(serve, sms_file):
    client = serve(sms_file)
    r = client.get("/nothing/here")
    assert r.status_code == 404
    assert r.json() == {"error": "no such resource: GET /nothing/here"}
    r = client.get("/check")
    assert r.status_code == 405
    assert r.headers["allow"] == "POST"
    assert "GET is not allowed on /check" in r.json()["error"]
    assert client.delete("/").status_code == 405
    assert client.put("/learn/spam", content=b"x", headers=AUTH).status_code == 405


@pytest.mark.parametrize(
    "path",
    [
        "/../../../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/learn/..%2F..%2F..%2Fetc%2Fpasswd",
        "/learn/../../sms.bk",
        "/check/../sms.bk",
        "/sms.bk",
        "/sms.bk.journal",
        "/assets/index.html",
        "/invocations?path=/etc/passwd",
    ],
)
def test_no_request_names_a_file(serve, sms_file, path, tmp_path):
    client = serve(sms_file)
    before = sorted(p.name for p in (tmp_path / "served").iterdir())
    for method in ("GET", "POST"):
        r = client.request(method, path, content=b"/etc/passwd", headers=AUTH)
        assert r.status_code in (400, 404, 405, 415), (method, path, r.status_code)
        assert "root:" not in r.text
        assert r.headers["content-type"].startswith("application/json")
    assert sorted(p.name for p in (tmp_path / "served").iterdir()) == before
    assert client.get("/health").json()["seq"] == 0


def test_errors_are_json_objects_with_one_message(serve, sms_file):
    client = serve(sms_file)
    for r in (
        client.post("/invocations", content=b"{"),
        client.get("/nope"),
        client.post("/learn/spam", content=b"x"),
    ):
        body = json.loads(r.text)
        assert list(body) == ["error"]
        assert isinstance(body["error"], str)
        assert body["error"]


def test_the_page_is_self_contained(serve, sms_file):
    r = serve(sms_file).get("/")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in r.headers["content-security-policy"]
    page = r.text
    for remote in ("http://", "https://", "//cdn", "<link", "src="):
        assert remote not in page
    assert '<html lang="en">' in page
    assert 'name="viewport"' in page
    for control in ('for="message"', 'for="token"', 'for="file"', 'aria-live="polite"'):
        assert control in page
    assert r.headers["content-type"] == "text/html; charset=utf-8"


@pytest.mark.parametrize(
    "make",
    [
        lambda: bk.text.SpamFilter(model=bk.ComplementNB()),
        lambda: bk.text.SpamFilter(
            vectorizer=bk.text.TextVectorizer(output="binary"), model=bk.BernoulliNB()
        ),
        lambda: bk.text.SpamFilter.twcnb(alpha=0.3),  # tf-idf: a fixed vocabulary
        # Fisher's method: /check's log-odds and probability are the filter's, not the count
        # model's linear form
        lambda: bk.text.SpamFilter(scoring="fisher"),
        lambda: bk.text.SpamFilter(scoring="fisher", nb_weight=1.0),  # and the count model's
    ],
    ids=["complement", "bernoulli", "twcnb", "fisher", "fisher+naive_bayes"],
)
def test_other_text_models_check_and_learn(serve, tmp_path, sms, make):
    texts, labels = sms
    model = make().fit(texts[:1500], labels[:1500])
    path = tmp_path / "other.bk"
    bk.save(model, path)
    client = serve(path)
    probe = [SPAMMY, HAMMY, *texts[1500:1530]]
    for text, p, verdict in zip(
        probe, model.spam_probability(probe), model.classify(probe), strict=True
    ):
        got = client.post("/check", content=text).json()
        assert got["p_spam"] == pytest.approx(p, rel=1e-10, abs=1e-14)
        assert got["verdict"] == verdict
        assert got["log_odds"] == pytest.approx(model.log_odds([text])[0], rel=1e-10, abs=1e-12)
    before = client.app.service.state.snapshot.model
    assert client.post("/learn/spam", content=HAMMY, headers=AUTH).json()["learned"]
    expected = make().fit(texts[:1500], labels[:1500]).partial_fit([HAMMY], ["spam"])
    served = client.app.service.state.snapshot.model
    np.testing.assert_allclose(
        served.predict_proba(probe), expected.predict_proba(probe), rtol=1e-9, atol=1e-12
    )
    # the snapshot readers held before learning is untouched (copied, not updated in place)
    np.testing.assert_allclose(before.predict_proba(probe), model.predict_proba(probe), rtol=0)


def test_the_token_is_compared_in_constant_time(serve, sms_file, monkeypatch):
    import hmac

    import bayeskit.serve.app as app_module

    seen = []
    real = hmac.compare_digest

    def compare(a, b):
        seen.append((len(a), len(b)))
        return real(a, b)

    monkeypatch.setattr(app_module.hmac, "compare_digest", compare)
    client = serve(sms_file)
    for token in ("x", "a much longer wrong token than the real one", AUTH["Authorization"][7:]):
        client.post("/learn/spam", content=SPAMMY, headers={"Authorization": f"Bearer {token}"})
    # every comparison is of two 32-byte digests, whatever the length of what was sent
    assert seen == [(32, 32)] * 3


def test_csv_body_reads_missing_as_the_model_files_data_was_read(serve, tmp_path):
    """A text/csv body's NA (and the other usual markers) are missing values, as the command
    line reads them; a model file that stores its reading (``--missing ?``) adds its own."""
    frame, y = wine_frame()
    model = bk.MixedNB().fit(frame, y)
    rows = frame.head(6).with_columns(
        pl.when(pl.int_range(pl.len()) % 2 == 0).then(None).otherwise(pl.col("alcohol"))
        .alias("alcohol")
    )  # fmt: skip
    expected = model.predict_proba(rows)
    path = tmp_path / "wine-reading.bk"
    bk.save(model, path, reading={"missing": ["?"], "default_missing": True})
    client = serve(path)
    for marker in ("NA", "null", "?"):
        body = rows.write_csv(null_value=marker).encode()
        r = client.post(
            "/invocations?probabilities=true", content=body, headers={"Content-Type": "text/csv"}
        )
        assert r.status_code == 200, (marker, r.text)
        got = [[row[f"p_{c}"] for c in model.classes_] for row in r.json()["predictions"]]
        np.testing.assert_allclose(got, expected, rtol=1e-12, err_msg=marker)


def test_learns_through_the_service_are_partial_fit_of_the_messages(serve, sms_file, sms):
    """A model after N learns through the service (one update per learn, a large message's
    off the event loop) holds exactly the statistics of partial_fit of those N messages."""
    from bayeskit.serve.app import _BIG_BODY

    texts, _ = sms
    client = serve(sms_file)
    large = " ".join(texts[:3000])
    assert len(large.encode()) > _BIG_BODY
    messages = [(f"learned {i}: {texts[-1 - i]}", "spam" if i % 3 else "ham") for i in range(11)]
    messages.append((large, "ham"))
    for text, label in messages:
        r = client.post(f"/learn/{label}", content=text, headers=AUTH)
        assert r.status_code == 200, r.text
        assert r.json()["learned"] is True
    served = client.app.service.state.snapshot.model
    expected = bk.load(sms_file).partial_fit([t for t, _ in messages], [y for _, y in messages])
    assert served.class_count_.tolist() == expected.class_count_.tolist()
    ours, theirs = served.stats_.blocks[0].keyed, expected.stats_.blocks[0].keyed
    assert ours.terms.tolist() == theirs.terms.tolist()
    for a, b in zip(ours.block.weights(), theirs.block.weights(), strict=True):
        np.testing.assert_array_equal(a, b)
    probe = [SPAMMY, HAMMY, *texts[:20]]
    np.testing.assert_allclose(
        served.predict_proba(probe), expected.predict_proba(probe), rtol=1e-9, atol=1e-12
    )
    assert client.post("/check", content=large).json()["learned_as"] == "ham"


def test_a_value_the_model_refuses_is_named_by_the_requests_row_from_1(serve, tmp_path):
    path = tmp_path / "counts.bk"
    bk.save(bk.MultinomialNB().fit(np.array([[1.0, 2.0], [3.0, 0.0]]), ["a", "b"]), path)
    client = serve(path)
    r = client.post("/invocations", json={"instances": [[1, 2], [-3, 1]]})
    assert r.status_code == 400
    assert r.json()["error"].startswith("row 2: column 'x0' holds -3.0; a multinomial model")
