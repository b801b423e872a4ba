"""A stream's first documents need not meet the vocabulary's rules on their own.

``partial_fit`` learns documents whose terms are selected by ``min_df`` / ``max_df`` over every
document learned so far. Before, the text models selected the vocabulary at every
``partial_fit`` and refused a first batch in which no term met ``min_df`` yet (``DataError:
the vocabulary is empty``), although ``fit`` on all the batches worked: a stream could not
start. Now such a batch is learned with an :class:`EmptyVocabularyWarning`, the model predicts
its class priors until a term qualifies, and the batches add up to ``fit`` on all of them.
``fit`` still refuses an empty vocabulary, as scikit-learn's vectorizers do.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import bayeskit as bk
from bayeskit.errors import DataError, EmptyVocabularyWarning
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer

BATCHES = [
    (["cheap pills online", "meeting agenda attached"], ["spam", "ham"]),
    (["cheap watches online", "agenda for the meeting"], ["spam", "ham"]),
    (["online pills cheap now", "lunch after the meeting"], ["spam", "ham"]),
]
PROBES = ["cheap online pills", "meeting agenda", "nothing known here", ""]


def _joined(batches):
    """Every document and label of ``batches``, in order."""
    return [d for docs, _ in batches for d in docs], [y for _, ys in batches for y in ys]


def _makers():
    return {
        "text-classifier": lambda: TextClassifier(vectorizer=TextVectorizer(min_df=2)),
        "oov-column": lambda: TextClassifier(
            vectorizer=TextVectorizer(min_df=2, oov_token="<oov>")
        ),
        "useful-terms": lambda: TextClassifier(vectorizer=TextVectorizer(min_df=2), useful_terms=2),
        "spam-filter": lambda: SpamFilter(
            vectorizer=TextVectorizer(analyzer="word", min_df=2), ham_label="ham"
        ),
    }


MAKERS = _makers()


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_a_first_batch_below_min_df_is_learned_with_a_warning(name):
    model = MAKERS[name]()
    docs, labels = BATCHES[0]
    with pytest.warns(EmptyVocabularyWarning, match=r"min_df=2.*in 2 documents"):
        model.partial_fit(docs, labels, classes=["ham", "spam"])
    assert model.get_feature_names_out().tolist() in ([], ["<oov>"])
    proba = model.predict_proba(PROBES)
    # the priors (one document of each class), whatever the document
    np.testing.assert_allclose(proba, 0.5)


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_the_batches_add_up_to_the_fit_on_all_of_them(name):
    streamed = MAKERS[name]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyVocabularyWarning)
        for docs, labels in BATCHES:
            streamed.partial_fit(docs, labels, classes=["ham", "spam"])
    fitted = MAKERS[name]().fit(*_joined(BATCHES))
    assert streamed.get_feature_names_out().tolist() == fitted.get_feature_names_out().tolist()
    assert "cheap" in fitted.get_feature_names_out().tolist()
    if name == "spam-filter":  # its probability scale is fitted on other held-out scores
        np.testing.assert_allclose(
            streamed.log_odds(PROBES), fitted.log_odds(PROBES), rtol=1e-12, atol=1e-12
        )
    else:
        np.testing.assert_allclose(
            streamed.predict_joint_log_proba(PROBES),
            fitted.predict_joint_log_proba(PROBES),
            rtol=1e-12,
        )


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_fit_still_refuses_an_empty_vocabulary_and_keeps_its_model(name):
    model = MAKERS[name]().fit(*_joined(BATCHES[:2]))
    before = model.predict_proba(PROBES)
    with warnings.catch_warnings():
        warnings.simplefilter("error", EmptyVocabularyWarning)  # refused, not warned
        with pytest.raises(DataError, match=r"vocabulary is empty after min_df=2"):
            model.fit(*BATCHES[0])
    np.testing.assert_array_equal(model.predict_proba(PROBES), before)


def test_an_unlearn_may_leave_no_term_and_a_learn_brings_them_back():
    """Before, an unlearn that left every term below min_df was refused (MergeError)."""
    model = MAKERS["text-classifier"]().fit(*_joined(BATCHES[:2]))
    fitted = model.predict_joint_log_proba(PROBES)
    with pytest.warns(EmptyVocabularyWarning):
        model.unlearn(*BATCHES[1])
    np.testing.assert_allclose(model.predict_proba(PROBES), 0.5)
    model.partial_fit(*BATCHES[1])
    np.testing.assert_allclose(model.predict_joint_log_proba(PROBES), fitted, rtol=1e-12)


def test_a_model_of_no_term_yet_saves_and_loads(tmp_path):
    model = MAKERS["text-classifier"]()
    with pytest.warns(EmptyVocabularyWarning):
        model.partial_fit(*BATCHES[0])
    bk.save(model, tmp_path / "m.bkm")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyVocabularyWarning)
        loaded = bk.load(tmp_path / "m.bkm")
    np.testing.assert_array_equal(loaded.predict_proba(PROBES), model.predict_proba(PROBES))
    loaded.partial_fit(*BATCHES[1])
    assert "agenda" in loaded.get_feature_names_out().tolist()


def test_check_fit_holds_a_streamed_model_to_fits_demand():
    model = MAKERS["text-classifier"]()
    with pytest.warns(EmptyVocabularyWarning):
        model.partial_fit(*BATCHES[0])
    with pytest.raises(DataError, match="vocabulary is empty after min_df=2"):
        model.check_fit()
    model.partial_fit(*BATCHES[1])
    assert model.check_fit() is model


def test_the_vectorizer_alone_gives_rows_of_zeros_until_a_term_qualifies():
    vec = TextVectorizer(min_df=2).partial_fit(BATCHES[0][0])
    with pytest.warns(EmptyVocabularyWarning):
        assert vec.n_terms_ == 0
    assert vec.transform(PROBES).shape == (len(PROBES), 0)
    vec.partial_fit(BATCHES[1][0])
    assert vec.get_feature_names_out().tolist() == ["agenda", "cheap", "meeting", "online"]
    assert vec.n_terms_ == 4
    with pytest.raises(DataError, match="vocabulary is empty after min_df=2"):
        TextVectorizer(min_df=2).fit(BATCHES[0][0])
