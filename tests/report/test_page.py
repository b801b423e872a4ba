"""build_report: a well-formed, self-contained page whose numbers are scikit-learn's and whose
every user string is escaped."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from bayeskit import CategoricalNB
from bayeskit.datasets import load_sms_spam
from bayeskit.datasets.shared import load_uci_table
from bayeskit.errors import ParameterError
from bayeskit.report import build_report
from bayeskit.report.evaluation import MIN_BIN_ROWS
from bayeskit.report.svg import clip_text
from bayeskit.text import TextClassifier

from ._dom import parse

SECTIONS = ["glance", "setup", "classes", "confusion", "curves", "calibration"]
CV = StratifiedKFold(5, shuffle=True, random_state=0)


@pytest.fixture(scope="module")
def sms():
    texts, labels = load_sms_spam()
    model = TextClassifier()
    P = cross_val_predict(model, texts, labels, cv=CV, method="predict_proba")
    model.fit(texts, labels)
    page = build_report(
        title="SMS spam filter",
        classes=model.classes_,
        y_true=labels,
        proba=P,
        model=model,
        X=texts,
        y=labels,
        notes={"data": "SMSSpamCollection", "evaluation": "5-fold stratified CV"},
    )
    return model, labels, P, page


@pytest.fixture(scope="module")
def car(shared_data):
    X, y = load_uci_table("car", shared_data)
    frame = pd.DataFrame(X, columns=["buying", "maint", "doors", "persons", "lug_boot", "safety"])
    model = CategoricalNB()
    P = cross_val_predict(model, frame, y, cv=CV, method="predict_proba")
    model.fit(frame, y)
    page = build_report(
        title="Car evaluation", classes=model.classes_, y_true=y, proba=P, model=model, X=frame, y=y
    )
    return model, y, P, page


def metric_value(dom, key):
    card = next(n for n in dom.iter() if n.attrs.get("data-metric") == key)
    return float(next(c for c in card.children if c.attrs.get("class") == "value").text)


def test_page_is_well_formed_and_self_contained(sms):
    page = sms[3]
    dom = parse(page)  # raises on any unclosed or mismatched element
    assert not dom.find_all("script")
    assert not dom.find_all("link")
    assert not dom.find_all("img")
    assert not dom.find_all("iframe")
    for node in dom.iter():
        for name in ("src", "href", "xlink:href"):
            value = node.attrs.get(name, "")
            assert not re.match(r"\s*(https?:)?//", value, re.I), (node.tag, value)
    assert "://" not in page
    assert "url(" not in page
    assert "@import" not in page
    assert dom.find("title").text == "SMS spam filter"


def test_page_has_every_section_and_working_links(sms):
    dom = parse(sms[3])
    ids = {n.attrs["id"] for n in dom.iter() if "id" in n.attrs}
    assert set(SECTIONS) | {"terms"} <= ids
    assert len(ids) == sum(1 for n in dom.iter() if "id" in n.attrs)  # no id twice
    for link in dom.find("nav").find_all("a"):
        assert link.attrs["href"][1:] in ids
    svgs = dom.find_all("svg")
    assert len(svgs) >= 6  # balance, confusion, ROC, PR, calibration, top words
    for svg in svgs:
        assert re.fullmatch(r"0 0 \d+ \d+", svg.attrs["viewbox"])  # parser lowercases names
        assert svg.attrs.get("aria-label")


def test_headline_and_per_class_numbers_are_sklearns(sms):
    model, labels, P, page = sms
    dom = parse(page)
    pred = model.classes_[P.argmax(axis=1)]
    expected = {
        "accuracy": metrics.accuracy_score(labels, pred),
        "macro_f1": metrics.f1_score(labels, pred, average="macro"),
        "log_loss": metrics.log_loss(labels, P, labels=model.classes_),
        "roc_auc": metrics.roc_auc_score(labels == "spam", P[:, 1]),
        "balanced_accuracy": metrics.balanced_accuracy_score(labels, pred),
        "brier": metrics.brier_score_loss(labels == "spam", P[:, 1]),
    }
    for key, value in expected.items():
        assert metric_value(dom, key) == pytest.approx(value, abs=5e-5), key
    prec, rec, f1, support = metrics.precision_recall_fscore_support(labels, pred)
    table = dom.find("table", class_="perclass")
    for k, label in enumerate(model.classes_):
        row = table.find("tr", data_class=str(k))
        assert row.children[0].text == label
        cell = {c.attrs.get("data-col"): c.text for c in row.children}
        assert int(cell["support"]) == support[k]
        assert int(cell["predicted"]) == (pred == label).sum()
        for name, value in (("precision", prec), ("recall", rec), ("f1", f1)):
            assert float(cell[name]) == pytest.approx(value[k], abs=5e-5)
        hit = labels == label
        assert float(cell["auc"]) == pytest.approx(metrics.roc_auc_score(hit, P[:, k]), abs=5e-5)
        assert float(cell["ap"]) == pytest.approx(
            metrics.average_precision_score(hit, P[:, k]), abs=5e-5
        )


def test_confusion_cells_and_legends_show_sklearns_numbers(sms):
    model, labels, P, page = sms
    dom = parse(page)
    pred = model.classes_[P.argmax(axis=1)]
    cm = metrics.confusion_matrix(labels, pred, labels=model.classes_)
    cells = dom.find("section", id="confusion").find_all("rect", class_="cell")
    assert len(cells) == cm.size
    for cell in cells:
        assert (
            int(cell.attrs["data-count"])
            == cm[int(cell.attrs["data-true"]), int(cell.attrs["data-pred"])]
        )
    curves = dom.find("section", id="curves").text
    auc = metrics.roc_auc_score(labels == "spam", P[:, 1])
    ap = metrics.average_precision_score(labels == "spam", P[:, 1])
    assert f"spam  AUC {auc:.3f}" in curves
    assert f"spam  AP {ap:.3f}" in curves
    fpr, tpr, _ = metrics.roc_curve(labels == "spam", P[:, 1])
    mark = next(n for n in dom.iter() if "data-found" in n.attrs)
    assert float(mark.attrs["data-found"]) == pytest.approx(tpr[fpr <= 0.01].max(), abs=1e-6)
    assert f"{100 * tpr[fpr <= 0.01].max():.1f}% found" in mark.text
    counts = [int(r.text.replace(",", "")) for r in dom.find_all("td", data_col="count")]
    fine = np.bincount(np.minimum((P[:, 1] * 10).astype(int), 9), minlength=10)
    # tenths merged from the left until each bin holds MIN_BIN_ROWS rows
    expected, held = [], 0
    for c in fine.tolist():
        held += c
        if held >= MIN_BIN_ROWS:
            expected.append(held)
            held = 0
    if held:
        expected[-1] += held
    assert counts == expected
    assert min(counts) >= MIN_BIN_ROWS


def test_top_words_are_the_models(sms):
    model, _, _, page = sms
    terms = parse(page).find("section", id="terms")
    panels = terms.find_all("svg")
    assert len(panels) == len(model.classes_)
    for panel, (label, top) in zip(panels, model.top_terms(12).items(), strict=True):
        assert panel.attrs["aria-label"] == f"Top terms for {label}"
        shown = [t.children[0].text for t in panel.find_all("rect") if t.children]
        assert shown == [f"{term}: {weight:+.3f}" for term, weight in top]


def test_multiclass_table_model_page(car):
    model, y, P, page = car
    dom = parse(page)
    pred = model.classes_[P.argmax(axis=1)]
    assert metric_value(dom, "accuracy") == pytest.approx(metrics.accuracy_score(y, pred), abs=5e-5)
    auc = metrics.roc_auc_score(y, P, multi_class="ovr", labels=model.classes_)
    assert metric_value(dom, "roc_auc") == pytest.approx(auc, abs=5e-5)
    section = dom.find("section", id="terms")
    assert section.find("h2").text == "Most telling features per class"
    assert "safety=low" in section.text  # the classic give-away of an unacceptable car
    assert len(dom.find("section", id="curves").find_all("polyline")) == 2 * len(model.classes_)
    assert "densities" not in {n.attrs.get("id") for n in dom.iter()}  # nothing numeric


HOSTILE = ['<script>alert("x")</script>', "a\" onmouseover=\"alert('y')", "&amp; <b>bold</b>"]


def test_hostile_strings_are_escaped_everywhere():
    rng = np.random.default_rng(0)
    columns = ['<img src=x onerror="alert(1)">', "colour</text><script>1</script>"]
    frame = pd.DataFrame(
        {
            columns[0]: rng.choice(HOSTILE, 300),
            columns[1]: rng.choice(["<svg/onload=1>", "ok"], 300),
        }
    )
    y = rng.choice(HOSTILE, 300)
    model = CategoricalNB().fit(frame, y)
    page = build_report(
        title="<script>document.title</script>",
        classes=model.classes_,
        y_true=y,
        proba=model.predict_proba(frame),
        model=model,
        X=frame,
        y=y,
        notes={"<b>key</b>": "</dd><script>alert(2)</script>"},
    )
    dom = parse(page)
    assert not dom.find_all("script")
    assert not dom.find_all("img")
    assert not dom.find_all("b")
    assert len(dom.find_all("svg")) == len(dom.find_all("svg", class_="chart"))
    for node in dom.iter():
        assert not any(name.startswith("on") for name in node.attrs), (node.tag, node.attrs)
    assert dom.find("title").text == "<script>document.title</script>"
    rows = dom.find("table", class_="perclass").find_all("tr")
    shown = {r.children[0].text for r in rows if "data-class" in r.attrs}
    assert shown == {clip_text(label, 60) for label in HOSTILE}
    setup = dom.find("dl", class_="setup")
    assert "</dd><script>alert(2)</script>" in setup.text
    assert "<b>key</b>" in setup.text
    features = dom.find("section", id="terms").text
    assert columns[0] in features or clip_text(columns[0], 22) in features


#: characters that reorder or hide the text around them, and what the page shows instead
HIDDEN = {"\u202e": "\\u202e", "\u2067": "\\u2067", "\u202c": "\\u202c", "\x00": "\\x00",
          "\u200f": "\\u200f", "\x1b": "\\x1b", "\x9b": "\\x9b"}  # fmt: skip


def test_bidi_controls_and_nul_in_names_are_shown_escaped_never_raw():
    from bayeskit import MixedNB

    rng = np.random.default_rng(0)
    n = 200
    classes = np.array(["invoice\u202egnp.exe", "ok\x00hid\x1bden\x9b"])
    y = classes[rng.integers(0, 2, n)]
    X = pd.DataFrame(
        {
            "amount\u2067": rng.normal(size=n) + (y == classes[0]),
            "kind\u200f": rng.choice(["cash\u202e1 OT\u202c", "card"], n),
        }
    )
    model = MixedNB().fit(X, y)
    page = build_report(
        title="t\u202e", classes=model.classes_, y_true=y, proba=model.predict_proba(X),
        model=model, X=X, y=y, notes={"file\u2067": "a\x00b"},
    )  # fmt: skip
    for raw in HIDDEN:
        assert raw not in page, repr(raw)
    dom = parse(page)
    setup = dom.find("dl", class_="setup").text
    assert "invoice\\u202egnp.exe, ok\\x00hid\\x1bden\\x9b" in setup
    assert "file\\u2067" in setup
    assert "a\\x00b" in setup
    values = [r.attrs["data-value"] for r in dom.find_all("tr") if "data-value" in r.attrs]
    assert "cash\\u202e1 OT\\u202c" in values  # in attributes too
    assert "kind\\u200f" in dom.find("section", id="categories").text
    assert "amount\\u2067" in dom.find("section", id="densities").text
    assert dom.find("title").text == "t\\u202e"


def _many(K: int, n: int, seed: int = 5) -> tuple[list[str], np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    classes = [f"class {k}" for k in range(K)]
    truth = np.arange(n) % K
    logits = rng.normal(0, 1, (n, K)) + 3.0 * np.eye(K)[truth]
    P = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return classes, np.asarray(classes)[truth], P


def test_a_confusion_matrix_of_many_classes_is_summarised_not_drawn():
    from bayeskit.report.confusion import MAX_DRAWN_CLASSES, TOP_CONFUSIONS

    K = 200
    classes, y, P = _many(K, 1000)
    page = build_report(title="many", classes=classes, y_true=y, proba=P, model=None)
    assert len(page) < 2_000_000  # the full matrix alone was ~12 MB at 200 classes
    section = parse(page).find("section", id="confusion")
    assert not section.find_all("rect", class_="cell")
    assert section.find("p", class_="how").attrs["data-summarised"] == str(K)
    assert f"up to {MAX_DRAWN_CLASSES} classes" in section.text
    cm = metrics.confusion_matrix(y, np.asarray(classes)[P.argmax(axis=1)], labels=classes)
    np.fill_diagonal(cm, 0)
    listed = section.find("table", class_="confusions").find_all("tr")[1:]
    assert len(listed) == TOP_CONFUSIONS
    counts = [int(r.find("td", data_col="count").text.replace(",", "")) for r in listed]
    assert counts == sorted(np.sort(cm.ravel())[::-1][:TOP_CONFUSIONS].tolist(), reverse=True)
    i, j = int(listed[0].attrs["data-true"]), int(listed[0].attrs["data-pred"])
    assert cm[i, j] == cm.max()
    each = section.find("table", class_="mistakes").find_all("tr", class_=None)[1:]
    assert len(each) == K


def test_a_confusion_matrix_of_a_few_dozen_classes_is_drawn():
    from bayeskit.report.confusion import MAX_DRAWN_CLASSES

    classes, y, P = _many(MAX_DRAWN_CLASSES, 400)
    page = build_report(title="some", classes=classes, y_true=y, proba=P, model=None)
    section = parse(page).find("section", id="confusion")
    assert len(section.find_all("rect", class_="cell")) == MAX_DRAWN_CLASSES**2


def test_densities_of_many_classes_are_ranked_not_drawn():
    from bayeskit import GaussianNB

    rng = np.random.default_rng(0)
    K, n = 60, 600
    y = np.asarray([f"c{k}" for k in range(K)])[np.arange(n) % K]
    X = rng.normal(size=(n, 3)) + (np.arange(n) % K)[:, None] / 10
    model = GaussianNB().fit(X, y)
    page = build_report(
        title="t", classes=model.classes_, y_true=y, proba=model.predict_proba(X),
        model=model, X=X, y=y,
    )  # fmt: skip
    section = parse(page).find("section", id="densities")
    assert not section.find_all("svg")
    assert section.find("p", class_="how").attrs["data-summarised"] == str(K)
    assert len(section.find("table", class_="features").find_all("tr")) == 4  # head + 3


def test_many_classes_colour_only_the_hardest():
    rng = np.random.default_rng(3)
    classes = [f"class {k}" for k in range(12)]
    y = rng.choice(classes, 1200)
    truth = np.array([classes.index(v) for v in y])
    logits = rng.normal(0, 1, (1200, 12)) + 2.5 * np.eye(12)[truth] * np.linspace(0.2, 1.5, 12)
    P = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    page = build_report(title="twelve", classes=classes, y_true=y, proba=P, model=None)
    dom = parse(page)
    roc = dom.find("svg", aria_label="ROC curves")
    legend = [t.text for t in roc.find_all("text", class_="legend")]
    auc = [metrics.roc_auc_score(y == c, P[:, k]) for k, c in enumerate(classes)]
    hardest = np.argsort(auc)[:4]
    assert legend == [f"{classes[k]}  AUC {auc[k]:.3f}" for k in sorted(hardest)] + ["8 others"]
    assert 0 in hardest
    assert 11 not in hardest
    grey = roc.find_all("polyline", stroke="#8a8f98")
    assert len(grey) == 8
    assert all(line.attrs["stroke-width"] == "1" for line in grey)
    assert "Class balance" not in dom.find("section", id="setup").text


def test_title_must_be_text(sms):
    model, labels, P, _ = sms
    with pytest.raises(ParameterError, match="title must be a str"):
        build_report(title=None, classes=model.classes_, y_true=labels, proba=P, model=model)


@pytest.mark.parametrize("which", ["sms", "car"])
def test_every_table_header_cell_says_it_heads_its_column(request, which):
    # A screen reader reads a data cell with the header of its column: each <th> of the
    # page's tables heads a column, and says so.
    dom = parse(request.getfixturevalue(which)[3])
    headers = dom.find_all("th")
    assert headers
    assert all(th.attrs.get("scope") == "col" for th in headers)
    for table in dom.find_all("table"):
        first = table.find("tr")
        assert first is not None
        assert first.find_all("th"), "a table without a header row"
