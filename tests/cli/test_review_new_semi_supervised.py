"""``bayeskit train DATA --unlabeled SOURCE`` is the Python API's ``SemiSupervisedNB`` over the
same documents: for every form of SOURCE (a folder, an mbox, an e-mail file, a table's text
column, a file of lines, standard input) and of DATA (a folder of class folders, a table with
a text column), in batches and on two workers, the model written predicts the probabilities
that ``SemiSupervisedNB(TextClassifier(...)).fit`` gives (Nigam et al., 2000), on 20
Newsgroups posts."""

from __future__ import annotations

import csv
import mailbox
import shutil
from pathlib import Path

import numpy as np
import pytest

import bayeskit as bk
from bayeskit import SemiSupervisedNB
from bayeskit.io.documents import mbox_texts, read_documents
from bayeskit.text import TextClassifier

GROUPS = ("sci.space", "rec.autos", "talk.politics.guns")


@pytest.fixture(scope="module")
def posts(shared_data, tmp_path_factory) -> Path:
    """DATA (10 posts a group, as class folders and as a table), unlabelled posts (20 a group)
    as a folder, an mbox, a table and lines, one post as an e-mail file, and test posts."""
    root = shared_data / "20newsgroups-bydate" / "20news-bydate-train"
    out = tmp_path_factory.mktemp("posts")
    for group in GROUPS:
        files = sorted((root / group).iterdir())
        (out / "data" / group).mkdir(parents=True)
        (out / "unlabelled").mkdir(exist_ok=True)
        (out / "test").mkdir(exist_ok=True)
        for f in files[:10]:
            shutil.copy(f, out / "data" / group / f.name)
        for f in files[10:30]:
            shutil.copy(f, out / "unlabelled" / f"{group}-{f.name}")
        for f in files[100:105]:
            shutil.copy(f, out / "test" / f"{group}-{f.name}")
    labelled = read_documents(out / "data")
    unlabelled = list(read_documents(out / "unlabelled").docs)
    _write(out / "data.csv", ["text", "label"], zip(labelled.docs, labelled.labels, strict=True))
    _write(out / "unlabelled.csv", ["id", "text"], enumerate(unlabelled))
    (out / "unlabelled.txt").write_text(
        "".join(" ".join(doc.split()) + "\n" for doc in unlabelled), encoding="utf-8"
    )
    box = mailbox.mbox(out / "unlabelled.mbox")
    for f in sorted((out / "unlabelled").iterdir()):
        box.add(mailbox.mboxMessage(f.read_bytes()))
    box.close()
    shutil.copy(sorted((out / "unlabelled").iterdir())[0], out / "one.eml")
    return out


def _write(path, header, rows) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows([header, *rows])


def _documents(posts: Path, source: str) -> list[str]:
    """The unlabelled documents as the CLI says it reads SOURCE."""
    if source == "unlabelled.mbox":
        return list(mbox_texts(posts / source))
    if source in ("unlabelled.txt", "-"):
        return (posts / "unlabelled.txt").read_text(encoding="utf-8").splitlines()
    if source == "one.eml":
        return list(read_documents(posts / source, kind="text").docs)
    return list(read_documents(posts / "unlabelled").docs)  # the folder and the table


def _check(cli, posts, tmp_path, data, source, *extra):
    out = tmp_path / "m.bkm"
    args = ["train", posts / data, "--unlabeled", source if source == "-" else posts / source]
    args += [*extra, "-o", out] + (["-t", "label"] if data == "data.csv" else [])
    stdin = (posts / "unlabelled.txt").read_bytes() if source == "-" else None
    result = cli(*args, input=stdin)
    assert result.exit_code == 0, result.stderr
    written = bk.load(out)
    labelled = read_documents(posts / "data")
    docs = _documents(posts, source)
    vectorizer, model = written.prototypes()
    api = SemiSupervisedNB(TextClassifier(vectorizer=vectorizer, model=model))
    api.fit([*labelled.docs, *docs], [*labelled.labels, *[None] * len(docs)])
    test = list(read_documents(posts / "test").docs)
    np.testing.assert_array_equal(written.classes_, api.classes_)
    np.testing.assert_allclose(
        written.predict_proba(test), api.estimator_.predict_proba(test), rtol=1e-9, atol=1e-12
    )
    return result


SOURCES = ["unlabelled", "unlabelled.mbox", "unlabelled.csv", "unlabelled.txt", "-", "one.eml"]


@pytest.mark.parametrize("data", ["data", "data.csv"])
@pytest.mark.parametrize("source", SOURCES)
def test_every_source_gives_the_api_model(cli, posts, tmp_path, data, source):
    _check(cli, posts, tmp_path, data, source)


@pytest.mark.parametrize("source", ["unlabelled", "unlabelled.mbox", "unlabelled.txt"])
def test_batches_give_the_same_model(cli, posts, tmp_path, source):
    _check(cli, posts, tmp_path, "data", source, "--batch-size", "7")


@pytest.mark.slow  # worker processes
@pytest.mark.parametrize("source", ["unlabelled", "unlabelled.csv"])
def test_two_workers_give_the_same_model(cli, posts, tmp_path, source):
    _check(cli, posts, tmp_path, "data", source, "--workers", "2", "--batch-size", "13")


def test_a_table_source_with_a_stray_quote_is_refused_by_name(cli, posts, tmp_path):
    rows = [(i, f"post number {i} about engines") for i in range(12)]
    rows[3] = (3, '"quoted ' + rows[3][1])
    rows[6] = (6, rows[6][1] + '"')
    bad = tmp_path / "bad.csv"
    bad.write_text("id,text\n" + "".join(f"{i},{t}\n" for i, t in rows), encoding="utf-8")
    result = cli("train", posts / "data", "--unlabeled", bad, "-o", tmp_path / "m.bkm")
    assert result.exit_code == 2
    assert f"{bad}, line 5: the double quote at column 3" in " ".join(result.stderr.split())
