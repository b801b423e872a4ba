"""Who may learn, what, and under which label: empty messages, labels with a slash, tokens a
client cannot send, and models the service cannot teach."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.errors import BayeskitError
from bayeskit.serve import ServeConfig, create_app
from bayeskit.serve.app import read_token
from bayeskit.serve.server import _banner
from bayeskit.text import TextClassifier

from .conftest import AUTH


@pytest.mark.parametrize("body", [b"", b"   ", b"\n\t \r\n"])
@pytest.mark.parametrize("route", ["learn", "unlearn"])
def test_an_empty_message_is_neither_learned_nor_unlearned(serve, sms_file, body, route):
    client = serve(sms_file)
    before = client.get("/metadata").json()["class_count"]
    r = client.post(f"/{route}/spam", content=body, headers=AUTH)
    assert r.status_code == 400, r.text
    assert "an empty message" in r.json()["error"]
    assert client.get("/metadata").json()["class_count"] == before
    assert client.get("/health").json()["seq"] == 0


def test_an_empty_message_is_refused_by_a_text_classifier_too(serve, topics_file):
    client = serve(topics_file)
    r = client.post("/learn/sport", content=b" ", headers=AUTH)
    assert r.status_code == 400, r.text
    assert "an empty message" in r.json()["error"]


@pytest.fixture(scope="module")
def slash_file(tmp_path_factory) -> Path:
    model = TextClassifier().fit(
        ["invoice overdue pay now", "pay the invoice", "lunch at noon", "see you at lunch"],
        ["billing/late", "billing/late", "social", "social"],
    )
    path = tmp_path_factory.mktemp("models") / "slash.bk"
    bk.save(model, path)
    return path


def test_a_label_with_a_slash_is_learned_and_unlearned(serve, slash_file):
    client = serve(slash_file)
    before = client.get("/metadata").json()["class_count"]["billing/late"]
    r = client.post("/learn/billing%2Flate", content=b"final notice, pay now", headers=AUTH)
    assert r.status_code == 200, r.text
    assert r.json()["learned"] is True
    assert r.json()["class_count"]["billing/late"] == before + 1
    r = client.post("/unlearn/billing/late", content=b"final notice, pay now", headers=AUTH)
    assert r.status_code == 200, r.text
    assert r.json()["class_count"]["billing/late"] == before
    r = client.post("/learn/billing/early", content=b"pay now", headers=AUTH)
    assert r.status_code == 400
    assert "unknown label 'billing/early'" in r.json()["error"]


@pytest.mark.parametrize("token", ["pässwörd-geheim", "token-€-0123456789", "ключ-секрет-1"])
def test_a_token_outside_ascii_is_refused_at_start(tmp_path, sms_file, token):
    path = tmp_path / "token"
    path.write_text(token + "\n", encoding="utf-8")
    with pytest.raises(BayeskitError, match="outside ASCII"):
        read_token(str(path))


def test_a_server_with_a_token_outside_ascii_does_not_start(tmp_path, sms_file):
    path = tmp_path / "token"
    path.write_text("pässwörd-geheim\n", encoding="utf-8")
    with pytest.raises(BayeskitError, match=r"'ä', a character outside ASCII"):
        create_app(ServeConfig(model=str(sms_file), token_file=str(path)))
    assert not Path(f"{sms_file}.lock").exists()


@pytest.fixture(scope="module")
def table_file(tmp_path_factory) -> Path:
    rng = np.random.default_rng(0)
    model = bk.GaussianNB().fit(rng.normal(size=(50, 2)), rng.integers(0, 2, 50))
    path = tmp_path_factory.mktemp("models") / "table.bk"
    bk.save(model, path)
    return path


def test_a_table_model_is_served_with_learning_off_and_no_journal(serve, table_file, token_file):
    client = serve(table_file)  # with a token
    learning = client.get("/metadata").json()["learning"]
    assert learning["enabled"] is False
    assert "reads table rows" in learning["reason"]
    r = client.post("/learn/1", content=b"1,2", headers=AUTH)
    assert r.status_code == 403
    assert "reads table rows" in r.json()["error"]
    served = next((token_file.parent / "served").iterdir())
    assert sorted(p.name for p in served.parent.iterdir()) == ["table.bk"]
    config = ServeConfig(model=str(served), token_file=str(token_file))
    banner = _banner(config, "http://127.0.0.1:18600", client.app)
    assert "learning: off" in banner
    assert "reads table rows" in banner
