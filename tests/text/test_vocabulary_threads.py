"""A vectorizer grown by ``partial_fit`` chooses its vocabulary (and idf) at its first use:
threads transforming at once then get what one thread gets, never a vocabulary without its
idf or with the previous one's."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from bayeskit.datasets import load_sms_spam
from bayeskit.text import TextVectorizer

THREADS = 6


@pytest.mark.parametrize("second", ["none", "new terms", "no new term"])
def test_threads_at_the_first_use_after_partial_fit_see_one_vocabulary(second):
    texts, _ = load_sms_spam()
    texts = list(texts)
    message = texts[4000:4001]
    batches = {"none": None, "new terms": texts[2000:4000], "no new term": texts[:1000]}

    def grown() -> TextVectorizer:
        vectorizer = TextVectorizer(output="tfidf")
        vectorizer.partial_fit(texts[:2000])
        if batches[second] is not None:
            vectorizer.transform(message)  # the first vocabulary chosen, then grown again
            vectorizer.partial_fit(batches[second])
        return vectorizer

    expected = grown().transform(message).toarray()
    for _ in range(15):
        vectorizer, start = grown(), threading.Barrier(THREADS)

        def transform(_: int, vectorizer=vectorizer, start=start) -> np.ndarray:
            start.wait()
            return vectorizer.transform(message).toarray()

        with ThreadPoolExecutor(THREADS) as pool:
            for got in pool.map(transform, range(THREADS)):
                np.testing.assert_array_equal(got, expected)
