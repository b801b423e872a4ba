"""Gaussian Naive Bayes: real-valued features, normal within each class."""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ..families.gaussian import Gaussian, GaussianParams
from ..stats import Moments, Summary
from ._numeric import NumericNB


class GaussianNB(NumericNB):
    """Naive Bayes for real-valued features: ``x_j | y=c ~ N(μ_cj, σ²_cj)``.

    Same parameters and numbers as scikit-learn's ``GaussianNB`` (``priors``,
    ``var_smoothing``; ``theta_``, ``var_``, ``epsilon_``, ``class_prior_``), fitted from centred
    moments merged with Chan's formula so that ``fit``, ``partial_fit`` over any batches,
    ``merge`` and ``unlearn`` give the same model. Differences from scikit-learn, all on purpose:

    * the variance floor ``epsilon_ = var_smoothing · max_j Var(x_j)`` is that of all the data
      seen, not of the last ``partial_fit`` batch (scikit-learn issue #14054), and of the
      weighted data (a row of weight 2 counts as two rows; scikit-learn's ignores
      ``sample_weight``), and stays positive when every feature is constant;
      ``var_floor="column"`` floors each feature by its own variance instead (``epsilon_`` is
      then one floor per feature), as R's e1071 and Weka do, so that one feature in large units
      does not flatten the others;
    * NaN is a missing value: it drops the feature's term, in fitting and in prediction, and a
      row with every feature missing gets the prior (Duda, Hart & Stork 2001, §2.10);
    * ``shared_variance=True`` gives one variance per feature for all classes, a linear rule
      (Hastie et al. §4.3, :meth:`linear_discriminant`); ``estimate="predictive"`` integrates the
      parameters out under a Normal-Gamma prior and scores with the Student-t predictive
      (Duda, Hart & Stork 2001, §2.10);
    * the joint log-likelihood is two matrix products, not a loop over classes.

    GaussianNB is quadratic discriminant analysis with diagonal covariance matrices (Duda et al.).

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes (in the order of ``classes_``); None: the class
        frequencies of the training data.
    var_smoothing : float, default=1e-9
        Portion of the largest feature variance added to every variance (>= 0).
    var_floor : {"largest", "column"}, default="largest"
        ``"largest"``: the floor is ``var_smoothing`` times the largest feature variance, for
        every feature (scikit-learn's numbers). ``"column"``: ``var_smoothing`` times each
        feature's own variance (the default of :class:`~bayeskit.MixedNB`).
    shared_variance : bool, default=False
        Pool the within-class variance of each feature over the classes.
    estimate : {"mle", "predictive"}, default="mle"
        Maximum likelihood (scikit-learn's numbers) or the Normal-Gamma posterior predictive.
    prior_mean, prior_count, prior_var
        The Normal-Gamma prior of ``estimate="predictive"`` (see
        :class:`~bayeskit.families.gaussian.Gaussian`): μ₀ (None: each feature's pooled
        mean), how many observations the prior is worth (κ₀ = 2α₀, default 1), and the prior
        guess of the variance (None: each feature's pooled variance plus ``epsilon_``).
    class_weight, loss
        The decision rule, as for :class:`~bayeskit.MultinomialNB`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        Weighted number of training rows of each class.
    class_prior_ : ndarray of shape (n_classes,)
        Probability of each class (``priors`` when given).
    theta_ : ndarray of shape (n_classes, n_features)
        Mean of each feature in each class (the Student-t location when predictive).
    var_ : ndarray of shape (n_classes, n_features)
        Variance of each feature in each class, floor included (the squared Student-t scale
        when predictive).
    dof_ : ndarray of shape (n_classes, n_features)
        Student-t degrees of freedom (``inf`` for the normal model).
    epsilon_ : float or ndarray of shape (n_features,)
        The variance floor (one per feature with ``var_floor="column"``).
    stats_ : Summary
        The sufficient statistics (a :class:`~bayeskit.stats.Moments` block).
    n_features_in_, feature_names_in_

    References
    ----------
    .. [1] G. H. John and P. Langley, "Estimating continuous distributions in Bayesian
           classifiers", Proc. 11th Conference on Uncertainty in Artificial Intelligence,
           pp. 338-345, 1995.
    .. [2] I. H. Witten, E. Frank and M. A. Hall, Data Mining: Practical Machine Learning
           Tools and Techniques, 3rd ed., Morgan Kaufmann, 2011 (Weka's NaiveBayes floors
           each numeric attribute's spread by that attribute's own precision).

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit import GaussianNB
    >>> X = np.array([[-1, -1], [-2, -1], [-3, -2], [1, 1], [2, 1], [3, 2]])
    >>> y = np.array([1, 1, 1, 2, 2, 2])
    >>> model = GaussianNB().fit(X, y)
    >>> model.predict([[-0.8, -1], [np.nan, 1.5]])
    array([1, 2])
    >>> model.theta_
    array([[-2.        , -1.33333333],
           [ 2.        ,  1.33333333]])
    >>> model.predict_proba([[np.nan, np.nan]])  # nothing observed: the prior
    array([[0.5, 0.5]])
    """

    #: the template's class prior: frequencies unless ``priors`` fixes it (scikit-learn's rule).
    fit_prior = True
    prior_alpha = 0.0

    def __init__(
        self,
        *,
        priors: Any = None,
        var_smoothing: float = 1e-9,
        var_floor: str = "largest",
        shared_variance: bool = False,
        estimate: str = "mle",
        prior_mean: Any = None,
        prior_count: float = 1.0,
        prior_var: Any = None,
        class_weight: Any = None,
        loss: Any = None,
    ):
        self.priors = priors
        self.var_smoothing = var_smoothing
        self.var_floor = var_floor
        self.shared_variance = shared_variance
        self.estimate = estimate
        self.prior_mean = prior_mean
        self.prior_count = prior_count
        self.prior_var = prior_var
        self.class_weight = class_weight
        self.loss = loss

    _prior_name = "priors"

    @property
    def class_prior(self) -> Any:
        """The template's fixed class prior: scikit-learn calls it ``priors``."""
        return self.priors

    def _families(self) -> list[Any]:
        return [
            Gaussian(
                self.var_smoothing,
                var_floor=self.var_floor,
                shared_variance=self.shared_variance,
                estimate=self.estimate,
                prior_mean=self.prior_mean,
                prior_count=self.prior_count,
                prior_var=self.prior_var,
            )
        ]

    def _summarize(
        self, X: Any, y: Any, sample_weight: Any, *, classes: Any, reset: bool, part: bool = False
    ) -> Summary:
        summary = super()._summarize(X, y, sample_weight, classes=classes, reset=reset, part=part)
        if _float32_data(X):
            moments = cast(Moments, summary.blocks[0]).as_dtype("float32")
            summary = Summary(summary.classes, summary.class_count, (moments,))
        return summary

    def _params(self) -> GaussianParams:
        params: GaussianParams = self._fitted()[1][0]
        return params

    def _as_data(self, values: Any) -> Any:
        """Fitted values in the dtype of the training data (float32 stays float32, as in
        scikit-learn); the model itself computes in float64 from float64 statistics."""
        dtype = cast(Moments, self._fitted_summary().blocks[0]).dtype
        return np.asarray(values, dtype=dtype) if dtype != "float64" else values

    @property
    def theta_(self) -> np.ndarray:
        """Mean of each feature in each class (Student-t location when predictive)."""
        return cast(np.ndarray, self._as_data(self._params().theta))

    @property
    def var_(self) -> np.ndarray:
        """Variance of each feature in each class, floor included."""
        return cast(np.ndarray, self._as_data(self._params().var))

    @property
    def class_count_(self) -> np.ndarray:
        """Weighted number of training rows of each class."""
        return cast(np.ndarray, self._as_data(self._fitted_summary().class_count))

    @property
    def dof_(self) -> np.ndarray:
        """Student-t degrees of freedom; ``inf`` (a normal distribution) for the MLE."""
        params = self._params()
        return np.full(params.var.shape, np.inf) if params.dof is None else params.dof

    @property
    def epsilon_(self) -> Any:
        """The variance floor ``var_smoothing · max_j Var(x_j)`` (``var_smoothing · Var(x_j)``
        for each feature with ``var_floor="column"``)."""
        eps = self._params().epsilon
        if isinstance(eps, np.ndarray):
            return self._as_data(eps)
        return np.float32(eps) if self._as_data(eps) is not eps else eps

    @property
    def class_prior_(self) -> np.ndarray:
        """Probability of each class."""
        return cast(np.ndarray, self._as_data(np.exp(self.class_log_prior_)))


def _float32_data(X: Any) -> bool:
    """Whether ``X`` holds float32 numbers only (an array, sparse matrix or DataFrame)."""
    dtype = getattr(X, "dtype", None)
    if dtype is not None:
        return bool(dtype == np.float32)
    dtypes = getattr(X, "dtypes", None)
    try:
        return dtypes is not None and len(dtypes) > 0 and all(d == np.float32 for d in dtypes)
    except TypeError:
        return False
