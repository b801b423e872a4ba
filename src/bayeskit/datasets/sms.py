"""The SMS Spam Collection v.1 (Almeida, Gómez Hidalgo & Yamakami, 2011), shipped with bayeskit.

5,574 SMS messages labelled ``ham`` (4,827) or ``spam`` (747). Licence: CC BY 4.0 (UCI); see
``data/readme`` and ``data/SOURCE.md`` beside this file. Please cite:

    Almeida, T.A., Gómez Hidalgo, J.M., Yamakami, A. Contributions to the Study of SMS Spam
    Filtering: New Collection and Results. Proc. 2011 ACM Symposium on Document Engineering
    (DocEng'11), Mountain View, CA, 2011.
"""

from __future__ import annotations

from importlib import resources

import numpy as np


def load_sms_spam() -> tuple[list[str], np.ndarray]:
    """Messages and their labels.

    Returns
    -------
    texts : list of str, length 5574
    labels : ndarray of str, values ``"ham"`` or ``"spam"``

    Examples
    --------
    >>> from bayeskit.datasets import load_sms_spam
    >>> texts, labels = load_sms_spam()
    >>> len(texts), int((labels == "spam").sum())
    (5574, 747)
    """
    raw = resources.files(__package__).joinpath("data/SMSSpamCollection").read_text("utf-8")
    labels, texts = [], []
    for line in raw.splitlines():
        label, _, text = line.partition("\t")
        labels.append(label)
        texts.append(text)
    return texts, np.asarray(labels)
