"""The Gaussian-mixture classifier: a mixture of Gaussians per class, fitted by EM — a
radial-basis-function network (Vorontsov's lectures on EM)."""

from __future__ import annotations

from typing import Any, ClassVar, cast

import numpy as np

from ..contract import Contract
from ..naive_bayes._numeric import NumericNB
from ..stats import MixtureStats, Moments, Summary
from ..stats._base import hard_labels
from ._check import applies, check_folds, checked
from ._class_fit import warn_swamped
from ._family import GaussianMixtureFamily, MixtureParams
from ._ridge import relative_ridge


class GaussianMixtureClassifier(NumericNB):
    """Each class a mixture of ``k_y`` Gaussians: ``p(x|y) = Σ_k w_yk N(x; μ_yk, Σ_yk)``.

    As in Vorontsov's lectures, the E-step gets each row's responsibilities ``g_yik`` (the posterior
    of component k of its class), the M-step the weights ``w_yk = Σ_i g_yik / ℓ_y``, means and
    (co)variances from the rows weighted by ``g_yik``; the classifier is then
    ``a(x) = argmax_y λ_y P(y) Σ_k w_yk N(x; μ_yk, Σ_yk)`` — a radial-basis-function network
    whose hidden units are the components. EM here is bayeskit's one engine
    (:mod:`bayeskit.mixture`): responsibilities by log-sum-exp, M-step = the Gaussian family's
    own statistics (centred moments, scatter matrices) and ``finalize``.

    With ``n_components=1`` this is GaussianNB (``"diag"``) or QDA (``"full"``). With the same
    start (``random_state``, ``init_params``, ``means_init``) and ``var_floor=None`` each
    class's mixture is scikit-learn's ``GaussianMixture`` fitted on that class's rows (the
    default floor changes nothing on finely recorded data, and keeps components from
    collapsing onto the values of 0/1 and other few-valued columns: see ``var_floor``) —
    exactly so (to rounding) for the starts that weigh every row, ``"kmeans"`` and
    ``"random"``, with every covariance type. The starts of one row per component,
    ``"k-means++"`` and ``"random_from_data"``, are drawn identically (the same rows), but:

    * ``"tied"`` gives another mixture: scikit-learn's tied estimate
      ``(Σ_i x_i x_iᵀ − Σ_k n_k μ_k μ_kᵀ) / Σ_k n_k`` sums over every row, though only the k
      starting rows have responsibility, so its first matrix is about the class's whole
      scatter over k; here the start is the pooled scatter of its responsibilities
      (``reg_covar`` for one-row components), and EM climbs to another maximum;
    * ``"diag"`` and ``"spherical"`` agree to about 1e-6 (not 1e-10): scikit-learn computes a
      one-row component's starting variance as ``E[x²] − 2 E[x] μ + μ²`` plus ``reg_covar``,
      which cancels to a rounding residue of order ``x²·1e-16`` beside ``reg_covar``
      (1e-6), and EM carries that difference; ``"full"`` centres first and agrees to
      rounding;
    * with ``max_iter=0``, scikit-learn's starting weights are ``n_k / n`` (summing to k/n);
      here they are the start's own shares, 1/k each.

    Unlike scikit-lego's GMMClassifier, ``predict_proba`` includes the class prior, and
    log-probabilities stay finite in hundreds of dimensions.

    Parameters
    ----------
    n_components : int, dict or "bic", default="bic"
        Components per class: one number for every class, a dict ``{label: number}``, or
        "bic": for each class, the number in ``1 … max_components`` with the smallest
        Bayesian information criterion ``−2 ln L + p ln ℓ_y`` (as R's mclust ``MclustDA``
        chooses ``G`` per class) among the fits whose every component holds more than
        ``N/4`` of the class's rows (N: a component's free parameters, 2 per feature for
        "diag"; sample weights count as rows). One component, the class's GaussianNB
        (``"diag"``) or QDA (``"full"``), is always a candidate. A component with fewer rows
        sits where the likelihood is unbounded — its variances shrink onto its rows and BIC,
        a large-sample approximation, rewards that without limit (about ten rows a class in
        eight columns got five components of one or two rows each) — which is why
        Figueiredo & Jain's minimum-message-length criterion annihilates components of at
        most ``N/2`` rows ("Unsupervised learning of finite mixture models", IEEE TPAMI
        24(3), 2002); the threshold here is half theirs, which keeps the components that
        one-hot tables support. A class with fewer distinct rows than a number of
        components gets at most that many, with a :class:`~bayeskit.mixture.FewRowsWarning`
        naming it when the number was given.
    covariance_type : {"diag", "full", "tied", "spherical"}, default="diag"
        Each component's covariance: diagonal (naive Bayes'), full, one full matrix shared by
        a class's components, or a single variance.
    max_components : int, default=5
        Largest number of components "bic" tries.
    reg_covar : float, default=1e-6
        Added to the diagonal of every covariance. With the default ``var_floor="resolution"``
        it is relative: column j of class y gets ``reg_covar · s_yj``, ``s_yj`` the column's
        variance over the class's rows (over every row where the column is constant in the
        class; 1 where it is constant in every row), so the classifier does not depend on the
        units of the columns (mclust's default prior is likewise set from each class's data,
        Fraley & Raftery 2007). The scales are stored with the model (``ridge_scale`` of
        :class:`~bayeskit.stats.MixtureStats`; files written before them keep the absolute
        ``reg_covar``). With ``var_floor=None`` it is absolute, in the units of the features,
        as in scikit-learn's GaussianMixture: a column whose variance within a class is below
        it (values of scale 1e-5 or less) is swamped — its variances become about
        ``reg_covar`` and it hardly counts — and the fit warns naming it
        (:class:`~bayeskit.mixture.SwampedColumnWarning`).
    reg_param : float in [0, 1], default=0.0
        Each component's covariance shrunk as scikit-learn's QDA shrinks a class's:
        ``Σ_k ← (1 − reg_param) Σ_k + reg_param · I`` (the identity, in the units of the
        features) in every M-step, before ``reg_covar`` is added; "diag" and "spherical":
        each variance ``(1 − reg_param) σ² + reg_param``; "tied": the shared matrix; with
        ``prior="conjugate"``: the posterior mode. With ``n_components=1``,
        ``covariance_type="full"`` and ``reg_covar=0`` the model is
        ``QuadraticDiscriminantAnalysis(reg_param=reg_param)``. A variance that would be 0
        (a pixel constant in a class) becomes at least ``reg_param``, so classes with such
        features need no tiny ``reg_covar``; choose it by cross-validation as for QDA.
        The shrunk M-step maximises neither the likelihood nor a fixed penalised one (the
        pull towards ``I`` follows each component's share of the rows, which no fixed prior
        does), so the lower bound may dip between iterations (5e-5 per row on digits, up to
        0.008 per row on a few dozen rows with ``reg_param=0.3``); EM still stops when it
        changes by less than ``tol``. ``reg_covar``, added after the M-step, is likewise
        outside any fixed objective, by its own size.
    var_floor : {"resolution", None}, default="resolution"
        "resolution": each component's variance of feature j is at least ``h_j² / 12``,
        ``h_j`` the smallest gap between two distinct values of feature j in the training
        rows (of every class: a column constant in one class is as coarse there) — the
        variance of the rounding error of values recorded to that resolution
        (Sheppard's correction; Kendall & Stuart, *The Advanced Theory of Statistics*,
        §3.18). On 0/1 and other few-valued columns (one-hot encoded categories, counts,
        integer codes) a component can then no longer sit on one value with a vanishing
        variance — the collapse that makes the likelihood and BIC grow without bound while
        the class gives almost zero probability to any row with another value; with the
        floor the mixture is at least as accurate as GaussianNB on such tables. A full or
        tied covariance is held above ``diag(h² / 12)`` in every direction, not only along
        the features (the most likely matrix under that bound, so EM never lowers the
        likelihood): a column that is the sum of two others keeps the resolution's
        variance across their plane. On finely recorded continuous data the floor lies
        below the ridge and changes nothing (every variance already includes it): such
        floors are stored as 0. "resolution" also makes
        ``reg_covar`` relative to each column's variance (see ``reg_covar``). None:
        ``reg_covar`` only, absolute (scikit-learn's GaussianMixture). The floors above the
        ridge are stored with the model (:func:`bayeskit.mixture.resolution_floor`).
    check_folds : int or None, default=5
        After BIC's choice, a ``check_folds``-fold cross-validation on the training rows
        compares the classifier with those mixtures and GaussianNB (one Gaussian per class,
        scikit-learn's ``var_smoothing=1e-9``): the mixtures are kept when their held-out
        Brier score is lower by two standard errors of the paired row-by-row difference;
        otherwise the model is that GaussianNB (``n_components_`` all 1, ``n_iter_`` 1;
        ``bic_`` still shows what BIC chose among; a column constant in a class keeps the
        ridge where it exceeds GaussianNB's floor). A better density of each class is not
        always a better classifier: on a one-hot table (R's ``infert``) the components sit
        on the categories' 0/1 columns and classify 13 rows of 248 worse than GaussianNB,
        and the check falls back to it; on tables whose classes the mixtures do separate
        better (R's ``crabs``, ``fgl``, ``Aids2``, UCI's ``spambase``, ``car``) it keeps
        them. The folds are a hash of each row's values, so a fit by rounds
        (:func:`bayeskit.dask.fit`) makes the same ones and the same choice. It costs
        ``check_folds`` more fits. It runs for ``n_components="bic"`` without
        ``means_init``, with ``covariance_type="diag"``, ``prior=None`` and
        ``reg_param=0`` (the settings under which one component per class is GaussianNB);
        None: BIC's choice alone. Formulas: :mod:`bayeskit.mixture._check`.
    prior : {None, "conjugate"}, default=None
        None: maximum-likelihood components (scikit-learn's GaussianMixture). "conjugate":
        the posterior mode under R's mclust default conjugate prior (``priorControl()``,
        Fraley & Raftery 2007), set from each class's own data: a normal prior on each mean
        (centred on the class mean, weight κ = 0.01 rows) and an inverse-Wishart (inverse-
        gamma per feature for "diag") on each covariance with ν = d + 2 degrees of freedom
        and scale the class covariance over ``G^(2/d)`` (G: the class's components) — as if
        every component had seen ``2d + 4`` rows spread like its class, so no covariance
        collapses onto a few rows or a constant feature. BIC then uses the log-likelihood at
        the posterior mode, as mclust does. MAP-EM raises the log posterior, not the
        log-likelihood (Dempster, Laird & Rubin 1977, §3; Fraley & Raftery 2007), which may
        fall between iterations (by up to 0.026 per row on a few dozen rows): the lower bound
        (``tol``, ``lower_bound_``) is then the log-likelihood plus the prior's log density
        of the parameters, per row, which never falls (with ``reg_param=0``). Formulas:
        :func:`bayeskit.mixture._components.conjugate_prior` and
        :func:`~bayeskit.mixture._components.conjugate_log_prior`.
    tol : float, default=1e-3
        EM stops when the lower bound (mean log-likelihood per row; with
        ``prior="conjugate"``, plus the prior's log density per row) changes by less.
    max_iter : int, default=100
        Most EM iterations per start (at most 100000); a class that did not converge gets a
        ``ConvergenceWarning``. ``max_iter=0`` keeps each class's start as its mixture (the
        ``init_params`` start, or one component fitted to the class), with ``lower_bound_``
        -inf and no warning, as scikit-learn's ``GaussianMixture(max_iter=0)`` (whose weights
        of the one-row starts differ: see above).
    n_init : int, default=1
        Starts per class (at most 1000); the one with the largest lower bound is kept.
    init_params : {"k-means++", "kmeans", "random", "random_from_data"}, default="k-means++"
        How a start is drawn (scikit-learn's choices), from the class's rows in their order:
        reordering the rows can change the start and so the mixture and BIC's choice (on
        wine with spherical covariances, 4 or 5 components for one class over six orders with
        ``n_init=1``; 5 in all six with ``n_init=5``). Sort the rows first (e.g.
        ``np.lexsort(X.T)``) for a fit that does not depend on their order.
    means_init : dict, optional
        ``{label: array of shape (n_components, n_features)}``: starting means of a class's
        components (its weights and covariances start from ``init_params``).
    random_state : int, RandomState or None, default=0
        An int seeds each class's starts with a fresh generator: fixed ⇒ identical model, so
        two fits of the default agree and cross-validation scores are reproducible. None:
        fresh randomness on every fit (scikit-learn's GaussianMixture default); a
        RandomState: drawn from, so consecutive fits differ.
    priors : array-like of shape (n_classes,), optional
        Class prior probabilities; None: the class frequencies.
    class_weight, loss
        The decision rule, as for :class:`~bayeskit.MultinomialNB`.

    Attributes
    ----------
    classes_, class_count_, class_prior_
    means_ : dict
        ``{label: (k_y, n_features)}`` the component centres of each class (the RBF centres).
    weights_ : dict
        ``{label: (k_y,)}`` the mixing weights of each class's components.
    covariances_ : dict
        ``{label: …}`` shaped as scikit-learn's: (k_y, n_features) for "diag", (k_y,) for
        "spherical", (k_y, n_features, n_features) for "full", (n_features, n_features) for
        "tied".
    n_components_ : ndarray of shape (n_classes,)
        ``k_y`` of each class, in the order of ``classes_``.
    converged_, n_iter_, lower_bound_ : ndarray of shape (n_classes,)
        How each class's EM run ended (lower bound: its mean log-likelihood per row, with
        ``prior="conjugate"`` its mean log posterior: the prior's log density of the
        parameters, over the class's rows, added), at the parameters of the last E-step.
    bic_ : dict
        ``{label: {k: BIC}}`` for ``n_components="bic"``: the numbers of components that
        were candidates (every component above the ``N/4`` rows of ``n_components``).
        ``−2 ln L + p ln n``, lower is better (scikit-learn's sign; mclust's is its negative).
    components_table_ : dict
        ``{label: {"n_components", "covariance_type", "bic", "bic_choice", "bic_by_k"}}``:
        what ``bayeskit inspect`` shows of each class's mixture.
    stats_ : Summary
        The components' statistics (:class:`~bayeskit.stats.MixtureStats`).

    Notes
    -----
    EM is not additive within a class, and the model declares it (:attr:`contract`, read by
    :func:`bayeskit.contract.contract_of`): it is fitted by rounds, there is no
    ``partial_fit`` and no ``unlearn`` (reading either raises
    :class:`~bayeskit.errors.MissingCapabilityError`, quoting the declaration), and ``merge``
    (``m1 + m2``) accepts models of different classes only (models sharing a class are
    refused with a :class:`~bayeskit.errors.CapabilityError`). Classes fitted apart merge
    into the model fitted on all of them only where nothing a class's fit reads comes from
    other classes' rows: each class's mixture must be BIC's choice alone
    (``check_folds=None``, or settings the check does not apply to: the check against
    GaussianNB decides for all the classes of one fit together, and the GaussianNB it falls
    back to smooths by the largest variance of that fit's rows, so with it the merged model
    holds each part's own decision), and the default ``var_floor="resolution"`` reads the
    rows of every class of a fit: its floor ``h_j² / 12`` (the smallest gap between two
    values of feature j over all the fit's rows) and the ridge's scale of a column constant
    within a class (its variance over every row). Merged, each part keeps the floor and
    scales of its own rows; so the merge equals one fit on all the rows with
    ``var_floor=None`` (and ``check_folds=None``), or where every part's rows give the
    whole's smallest gaps (or floors below the ridge, stored as 0) and no column is
    constant within a class. Classes recorded at different resolutions do not: a class of
    whole numbers fitted apart keeps the floor 1/12 that a fit beside a class recorded to
    hundredths lowers to at most 1e-4/12. Every EM iteration is
    itself a sum over parts of the data (:func:`bayeskit.mixture.iterate`), which is how a
    class too large for one machine is fitted: :func:`bayeskit.dask.fit` runs one reduction
    per EM iteration on a Dask cluster (and ``bayeskit train --model gmm`` one pass over the
    file's batches per iteration), giving this model from the same start.

    Examples
    --------
    >>> import numpy as np
    >>> from bayeskit import GaussianMixtureClassifier
    >>> rng = np.random.default_rng(0)
    >>> blobs = [rng.normal(c, 0.3, size=(40, 2)) for c in ([0, 0], [4, 4], [0, 4], [4, 0])]
    >>> X = np.vstack(blobs)
    >>> y = np.repeat(["xor-a", "xor-a", "xor-b", "xor-b"], 40)  # two blobs per class
    >>> model = GaussianMixtureClassifier(random_state=0).fit(X, y)
    >>> model.n_components_  # chosen by BIC for each class
    array([2, 2])
    >>> sorted((model.means_["xor-a"].round() + 0.0).tolist())  # the RBF centres
    [[0.0, 0.0], [4.0, 4.0]]
    >>> model.predict([[0.2, 3.9], [3.8, 4.1]])
    array(['xor-b', 'xor-a'], dtype='<U5')
    >>> label, k = model.predict_components([[0.2, 3.9]])  # which centre explains the row
    >>> str(label[0]), (model.means_[label[0]][k[0]].round() + 0.0).tolist()
    ('xor-b', [0.0, 4.0])
    """

    #: Fitted by rounds of EM, whose components of two batches of a class do not correspond:
    #: no partial_fit, no unlearn, and only models of different classes merge.
    contract: ClassVar[Contract] = Contract(
        incremental=False,
        mergeable=False,
        merges_classes=True,
        unlearnable=False,
        rounds="EM",
        input="matrix",
        feature_terms=False,  # a class is a mixture of components: its features interact
        class_table="components_table_",  # each class's components, covariance and BIC
        # EM's components, their covariances and starts are learned from the rows; the
        # class prior and the decision rule follow from the statistics
        refit_settings=(
            "n_components",
            "covariance_type",
            "max_components",
            "reg_covar",
            "reg_param",
            "var_floor",
            "check_folds",
            "prior",
            "tol",
            "max_iter",
            "n_init",
            "init_params",
            "means_init",
            "random_state",
        ),
        why=(
            "EM is not additive within a class (the components fitted to two batches do not "
            "correspond); fit each class's rows together"
        ),
    )
    fit_prior = True
    prior_alpha = 0.0

    def __init__(
        self,
        *,
        n_components: Any = "bic",
        covariance_type: str = "diag",
        max_components: int = 5,
        reg_covar: float = 1e-6,
        reg_param: float = 0.0,
        var_floor: str | None = "resolution",
        check_folds: int | None = 5,
        prior: str | None = None,
        tol: float = 1e-3,
        max_iter: int = 100,
        n_init: int = 1,
        init_params: str = "k-means++",
        means_init: Any = None,
        random_state: Any = 0,
        priors: Any = None,
        class_weight: Any = None,
        loss: Any = None,
    ):
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.max_components = max_components
        self.reg_covar = reg_covar
        self.reg_param = reg_param
        self.var_floor = var_floor
        self.check_folds = check_folds
        self.prior = prior
        self.tol = tol
        self.max_iter = max_iter
        self.n_init = n_init
        self.init_params = init_params
        self.means_init = means_init
        self.random_state = random_state
        self.priors = priors
        self.class_weight = class_weight
        self.loss = loss

    def _fit_rounds(self, *, partial: bool, classes: Any = None, init_sample: Any = None) -> Any:
        """The rounds that fit the model from parts of the data: one reduction per EM
        iteration (:mod:`bayeskit.mixture._rounds`; run by :func:`bayeskit.dask.fit`)."""
        from ._rounds import INIT_SAMPLE, mixture_rounds

        limit = INIT_SAMPLE if init_sample is None else init_sample
        return mixture_rounds(self, partial=partial, init_sample=limit)

    _prior_name = "priors"

    @property
    def class_prior(self) -> Any:
        """The template's fixed class prior (``priors``)."""
        return self.priors

    def _families(self) -> list[Any]:
        return [
            GaussianMixtureFamily(
                self.n_components,
                covariance_type=self.covariance_type,
                max_components=self.max_components,
                reg_covar=self.reg_covar,
                reg_param=self.reg_param,
                prior=self.prior,
                tol=self.tol,
                max_iter=self.max_iter,
                n_init=self.n_init,
                init_params=self.init_params,
                means_init=self.means_init,
                random_state=self.random_state,
                var_floor=self.var_floor,
            )
        ]

    def _summary_of(self, blocks: list[Any], labels: np.ndarray, R: Any) -> Summary:
        # The family needs the labels: n_components and means_init may be keyed by them.
        family = cast(GaussianMixtureFamily, self._families()[0])
        folds = check_folds(self.check_folds)
        stats = family.summarize_classes(blocks[0], R, labels)
        if not relative_ridge(self):
            # the classes' own variances, beside an absolute reg_covar: a column it swamps is
            # named (weights near 1e308 overflow these sums, which the family's own scale, not
            # this check's, keeps finite: such a class's variance is NaN and not compared)
            with np.errstate(over="ignore", invalid="ignore"):
                moments = Moments.of(blocks[0], R)
                variance, mean = moments.variance, moments.mean
            warn_swamped(
                variance,
                mean,
                float(self.reg_covar),
                self.feature_names(),
                np.asarray(labels).tolist(),
            )
        hard = hard_labels(R)
        if applies(family, folds) and hard is not None:
            from ._rounds import INIT_SAMPLE

            assert folds is not None
            stats = checked(self, stats, blocks[0], np.asarray(labels), *hard, folds, INIT_SAMPLE)
        class_count = np.asarray(R.sum(axis=0), dtype=np.float64).ravel()
        return Summary(labels, class_count, (stats,))

    # ------------------------------------------------------------------ the RBF view
    def _mixture(self) -> tuple[MixtureStats, MixtureParams]:
        params = self._fitted().params
        stats = self._fitted_summary().blocks[0]
        assert isinstance(stats, MixtureStats)
        return stats, params[0]

    def _per_class(self, values: np.ndarray) -> dict[Any, np.ndarray]:
        stats, _ = self._mixture()
        return {
            label: values[stats.class_components(c)]
            for c, label in enumerate(self.classes_.tolist())
        }

    @property
    def means_(self) -> dict[Any, np.ndarray]:
        """The component centres of each class, ``{label: (k_y, n_features)}`` (the posterior
        modes under ``prior="conjugate"``)."""
        _, params = self._mixture()
        components = params.components
        if components is None:
            return self._per_class(np.zeros((0, self.n_features_in_)))
        means = getattr(components, "theta", None)
        return self._per_class(np.asarray(components.means if means is None else means))

    @property
    def weights_(self) -> dict[Any, np.ndarray]:
        """The mixing weights of each class's components, ``{label: (k_y,)}``."""
        _, params = self._mixture()
        return self._per_class(np.exp(params.log_weight))

    @property
    def covariances_(self) -> dict[Any, np.ndarray]:
        """Each class's component covariances, shaped as scikit-learn's (see the class
        docstring), ``reg_covar`` included."""
        _stats, params = self._mixture()
        cov = _covariances(params)
        per_class = self._per_class(cov)
        if self.covariance_type == "spherical":
            return {k: v[:, 0] for k, v in per_class.items()}
        if self.covariance_type == "tied":
            return {k: v[0] if len(v) else v for k, v in per_class.items()}
        return per_class

    @property
    def n_components_(self) -> np.ndarray:
        """Number of components of each class, in the order of ``classes_``."""
        return self._mixture()[0].n_components

    @property
    def converged_(self) -> np.ndarray:
        """Whether each class's EM run converged, in the order of ``classes_``."""
        return self._mixture()[0].converged.copy()

    @property
    def n_iter_(self) -> np.ndarray:
        """EM iterations of each class's best start, in the order of ``classes_``."""
        return self._mixture()[0].n_iter.copy()

    @property
    def lower_bound_(self) -> np.ndarray:
        """Final lower bound of each class's EM run, in the order of ``classes_``: its mean
        log-likelihood per row; with ``prior="conjugate"`` plus the prior's log density of
        the parameters over the class's rows (the log posterior MAP-EM raises, up to a
        constant)."""
        return self._mixture()[0].lower_bound.copy()

    @property
    def bic_(self) -> dict[Any, dict[int, float]]:
        """``{label: {k: BIC}}`` of the numbers of components "bic" chose among."""
        table = self._mixture()[0].bic
        return {
            label: {k + 1: float(v) for k, v in enumerate(row) if np.isfinite(v)}
            for label, row in zip(self.classes_.tolist(), table, strict=True)
        }

    @property
    def components_table_(self) -> dict[Any, dict[str, Any]]:
        """What each class's mixture is, as ``bayeskit inspect`` shows it (the model's
        contract names this attribute, ``class_table``): ``{label: {"n_components": k_y,
        "covariance_type": …, "bic": the BIC of k_y components (None where BIC did not
        choose), "bic_choice": the number of smallest BIC (None where BIC did not choose),
        "bic_by_k": {k: BIC}}}``.

        BIC here is ``−2 ln L + p ln n`` (scikit-learn's ``GaussianMixture.bic`` sign: lower
        is better); R's mclust reports ``2 ln L − p ln n``, its negative (higher is better;
        Fraley & Raftery 2002). A class whose ``bic_choice`` exceeds its ``n_components`` is
        the GaussianNB the check against BIC's mixtures fell back to (``check_folds``).
        """
        counts = self.n_components_
        out: dict[Any, dict[str, Any]] = {}
        for c, (label, table) in enumerate(self.bic_.items()):
            k = int(counts[c])
            choice = min(table, key=table.__getitem__) if table else None
            out[label] = {
                "n_components": k,
                "covariance_type": str(self.covariance_type),
                "bic": table.get(k) if table else None,
                "bic_choice": choice,
                "bic_by_k": dict(table),
            }
        return out

    @property
    def class_prior_(self) -> np.ndarray:
        """Probability of each class."""
        return np.exp(self.class_log_prior_)

    def predict_components(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """Which centre of which class explains each row best: the class label and the
        component index within that class of ``argmax_{y,k} P(y) w_yk N(x; μ_yk, Σ_yk)``.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
        components : ndarray of int, shape (n_samples,)
        """
        prior, params, families = self._fitted()
        X = self._input(X, reset=False)
        block = self._blocks_of(X)[0]
        family = cast(GaussianMixtureFamily, families[0])
        mixture = params[0]
        L = family.component_log_prob(mixture, block) + prior[mixture.owner]
        best = np.argmax(L, axis=1)
        owner = mixture.owner[best]
        return self.classes_[owner], best - mixture.starts[owner]

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = self.covariance_type in ("diag", "spherical")
        tags.non_deterministic = self.random_state is None
        return tags


def _covariances(params: MixtureParams) -> np.ndarray:
    """Every component's covariance from the component family's parameters."""
    components = params.components
    if components is None:
        return np.zeros((0, 0))
    var = getattr(components, "var", None)
    if var is not None:
        return np.asarray(var)
    return np.asarray(components.covariance)
