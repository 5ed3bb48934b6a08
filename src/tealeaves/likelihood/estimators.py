"""Estimators of held-out ``log p(w_d | Phi, alpha)`` for LDA (Wallach, Murray, Salakhutdinov & Mimno 2009).

With the topics ``Phi`` fixed, a document's marginal likelihood integrates over
its topic proportions, ``p(w) = ∫ Dir(theta; alpha) prod_n sum_k theta_k phi_{k,w_n} dtheta``,
or equivalently sums over topic assignments,
``p(w) = sum_z p(z | alpha) prod_n phi_{z_n, w_n}`` with ``p(z | alpha)`` the
Dirichlet-multinomial.  Neither has a closed form; the estimators here are

``left-to-right``
    the sequential sampler of Wallach (2008) as in MALLET's evaluator, with
    ``n_particles`` particles (``resample=True`` resamples ``z_<n`` before each
    position, Wallach's algorithm; ``False`` is MALLET's default, linear in length);
``is``
    importance sampling from the prior, ``theta_s ~ Dir(alpha)``;
``hm``
    the harmonic mean of ``p(w | z_s)`` over posterior Gibbs samples, kept only
    to show its bias: it overestimates ``log p(w)``;
``ais``
    annealed importance sampling (Neal 2001) from ``p(z|alpha)`` to ``p(z|w)``;
``chib``
    the Chib-style estimator of Murray & Salakhutdinov (2009);

plus :func:`exact_log_likelihood`, which enumerates every assignment (small
problems only) and is what the estimators are tested against.  Standard errors
are over independent particles / samples / chains, by the delta method in log
space (``se(log mean x) ≈ sd(x) / (sqrt(S) mean x)``); the harmonic mean has none.
With ``replicates=R >= 2`` it is instead the spread of R independent runs
(``sd / sqrt(R)``); one replicate (the default) keeps the run's own delta-method
error, which is ``None`` when it cannot be estimated (the harmonic mean, or a
single particle, filter or chain).  ``standard_error_from`` in the results says which.
"""

from __future__ import annotations

import inspect
import itertools
import math
from dataclasses import dataclass, field

import numpy as np
from scipy.special import gammaln, logsumexp

from tealeaves import _interrupt
from tealeaves._docs import shared_doc
from tealeaves._records import RecordDict
from tealeaves._threads import resolve_threads
from tealeaves.corpus import Corpus
from tealeaves.errors import InvalidModelError, ParameterError, TealeavesError
from tealeaves.likelihood import _kernels
from tealeaves.likelihood._perplexity import align_corpus, perplexity, require_tokens, require_topic_word
from tealeaves.likelihood.completion import check_split, completion_signature, prepare_test
from tealeaves.likelihood.params import PARAMS as COUNTS
from tealeaves.models._fit import describe
from tealeaves.models.base import check_alpha, check_topic_word
from tealeaves.signature import Signature
from tealeaves.validation import check_bool, check_int

#: Estimators of the whole-document likelihood, by CLI name.
METHODS = ("left-to-right", "is", "hm", "ais", "chib")
#: Methods that need the Dirichlet prior alpha (everything but point-estimate completion).
NEEDS_ALPHA = METHODS + ("left-to-right-completion",)
#: Default number of samples (particles, prior draws, posterior draws, chains, Chib states).
DEFAULT_SAMPLES = {"left-to-right": 20, "is": 1000, "hm": 1000, "ais": 20, "chib": 1000}
#: Largest number of assignments (K ** N) :func:`exact_log_likelihood` enumerates.
MAX_ENUMERATION = 2_000_000
#: Smallest value of each count option (AIS needs at least two temperatures: one step is plain IS)
#: (declared in :mod:`tealeaves.likelihood.params`).
MINIMUM = {name: int(p.min_value) for name, p in COUNTS.items()}


@dataclass
class HeldOutEstimate(RecordDict):
    """An estimate of the held-out log-likelihood of a corpus, with its Monte Carlo error.

    Parameters
    ----------
    method : str
        The estimator (one of :data:`METHODS`, or ``"left-to-right-completion"``).
    log_likelihood : float
        The estimate of ``sum_d log p(w_d)``.
    standard_error : float or None
        ``sqrt(sum_d se_d^2)`` (documents are estimated independently), or ``None`` for
        the harmonic mean or a single sample.
    perplexity : float
        ``exp(-log_likelihood / n_words)``.
    n_words : int
        The number of tokens scored.
    n_documents : int
        The number of documents scored.
    n_dropped : int
        The test tokens dropped as out of the model's vocabulary.
    signature : Signature
        What was computed and how.
    document_log_likelihoods : numpy.ndarray, default empty
        The per-document estimates.
    document_standard_errors : numpy.ndarray or None, default None
        The per-document standard errors.
    extra : dict, default {}
        Further entries of :meth:`to_dict` (``standard_error_from``, the harmonic mean's warning...).
    """

    method: str
    log_likelihood: float
    standard_error: float | None
    perplexity: float
    n_words: int
    n_documents: int
    n_dropped: int
    signature: Signature
    document_log_likelihoods: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))
    document_standard_errors: np.ndarray | None = field(repr=False, default=None)
    extra: dict = field(default_factory=dict)

    @property
    def n_dropped_oov(self) -> int:
        return self.n_dropped

    @property
    def n_tokens_scored(self) -> int:
        return self.n_words

    #: :meth:`to_dict` without ``extra``: the scalar fields, ``n_tokens_scored`` and ``n_dropped_oov``.
    _DICT_KEYS = ("method", "log_likelihood", "standard_error", "perplexity", "n_words", "n_tokens_scored",
                  "n_documents", "n_dropped_oov", "signature")

    def to_dict(self) -> dict:
        """The estimate as a JSON-ready dictionary (without the per-document arrays).

        Returns
        -------
        dict
            The scalar fields, ``n_tokens_scored``, ``n_dropped_oov``, ``extra`` and the
            ``signature`` as a string.
        """
        out = super().to_dict()
        signature = out.pop("signature")
        return {**out, **self.extra, "signature": signature}


# -- parameter checks ----------------------------------------------------------
def model_parameters(model: object, method: str = "left-to-right") -> tuple[np.ndarray, np.ndarray]:
    """``(phi, alpha)`` of a tealeaves model, refusing models the estimators cannot use.

    Parameters
    ----------
    model : object
        A fitted probabilistic tealeaves model with a Dirichlet prior ``doc_topic_prior_``.
    method : str, default "left-to-right"
        The estimator asking, for the error message.

    Returns
    -------
    phi : numpy.ndarray
        The ``K x V`` topic-word probabilities.
    alpha : numpy.ndarray
        The ``K`` Dirichlet parameters.

    Raises
    ------
    InvalidModelError
        If the model has no prior ``alpha`` (every estimator except point-estimate
        completion needs it) or invalid topics.
    UnsupportedModelError
        If ``model`` is not a probabilistic tealeaves model.
    """
    phi = require_topic_word(model)
    alpha = check_alpha(getattr(model, "doc_topic_prior_", None), phi.shape[0])
    if alpha is None:
        exc = InvalidModelError(
            f"{type(model).__name__} has no Dirichlet prior alpha (doc_topic_prior_), which the "
            f"'{method}' estimator needs; every estimator except point-estimate completion "
            f"('completion') needs alpha ({', '.join(NEEDS_ALPHA)}). Give the model a doc_topic_prior, "
            "e.g. FixedTopicModel(phi, vocabulary, doc_topic_prior=1/K), or use `method='completion'`"
        )
        exc.param = "method"  # the command line names its option
        raise exc
    return phi, alpha


def _check_count(name: str, value: object) -> int:
    """A count option: a whole number (not a bool or float) within its declared bounds."""
    return COUNTS[name].check(value)


def _check_flag(name: str, value: object) -> bool:
    """A switch: exactly ``True`` or ``False`` (:func:`tealeaves.validation.check_bool`; the name first, as
    :func:`_check_count` takes it)."""
    return check_bool(value, name)


def check_sampler_seed(seed: object) -> int | None:
    """The sampler seed of the public functions: a whole number in ``[0, 2**32)``, or ``None`` (fresh).

    Parameters
    ----------
    seed : object
        The seed to check.

    Returns
    -------
    int or None
        The seed.

    Raises
    ------
    ParameterError
        If ``seed`` is not None or a whole number in range.
    """
    return None if seed is None else check_int(seed, "seed", min_value=0, max_value=2**32 - 1)


def _check_scorable(phi: np.ndarray, corpus: Corpus) -> None:
    """Refuse words every topic gives probability zero (their log-likelihood is -inf)."""
    if corpus.n_tokens == 0:
        return
    dead = phi.max(axis=0)[corpus.tokens] <= 0
    if dead.any():
        words = corpus.vocabulary.decode(np.unique(corpus.tokens[dead])[:5])
        raise InvalidModelError(
            f"every topic gives probability zero to {int(dead.sum())} test tokens (e.g. "
            f"{', '.join(words)}); smooth topic_word_ so every word has positive probability"
        )


def _phi_t(phi: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(phi.T, dtype=np.float64)


def _seed(seed: int | tuple[int, int] | None) -> int:
    return int(np.random.SeedSequence(seed).generate_state(1)[0] & 0x7FFFFFFF)


def _run(method: int, phi: np.ndarray, alpha: np.ndarray, corpus: Corpus, size: int, second: int = 0,
         third: int = 0, *, betas: np.ndarray | None = None, score_from: np.ndarray | None = None,
         seed: int | tuple[int, int] | None, n_threads: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Run :func:`tealeaves.likelihood._kernels.estimate` on ``n_threads`` threads (Ctrl-C stops it)."""
    threads = resolve_threads(n_threads)
    starts = np.zeros(len(corpus), dtype=np.int64) if score_from is None else np.asarray(score_from, np.int64)
    betas = np.zeros(1) if betas is None else betas
    return _interrupt.call(_kernels.on_threads(threads), method, corpus.tokens, corpus.offsets, starts,
                           _phi_t(phi), np.ascontiguousarray(alpha, dtype=np.float64), size, second, third,
                           betas, _seed(seed))


# -- exact value by enumeration ------------------------------------------------
def log_dirichlet_multinomial(counts: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """``log p(z | alpha)`` of one ordered assignment with topic counts ``counts`` (last axis K).

    ``Gamma(A) / Gamma(A + N) prod_k Gamma(alpha_k + n_k) / Gamma(alpha_k)``, ``A = sum alpha``
    (the Dirichlet-multinomial; Wallach et al. 2009, eq. 4).

    Parameters
    ----------
    counts : numpy.ndarray
        Topic counts ``n_k``, last axis of length K (any leading shape).
    alpha : numpy.ndarray
        The ``K`` Dirichlet parameters.

    Returns
    -------
    numpy.ndarray
        The log-probability of each assignment (the leading shape of ``counts``).
    """
    a_sum = alpha.sum()
    n = counts.sum(axis=-1)
    return (gammaln(a_sum) - gammaln(a_sum + n)
            + (gammaln(alpha + counts) - gammaln(alpha)).sum(axis=-1))


def exact_log_likelihood(words: np.ndarray, phi: np.ndarray, alpha: float | np.ndarray) -> float:
    """``log p(w | Phi, alpha)`` by summing over all ``K^N`` topic assignments.

    ``p(w) = sum_z p(z | alpha) prod_n phi_{z_n, w_n}`` (Wallach et al. 2009, eq. 3).

    Parameters
    ----------
    words : numpy.ndarray
        The ``N`` word ids of one document.
    phi : numpy.ndarray
        The ``K x V`` topic-word probabilities.
    alpha : float or numpy.ndarray
        The Dirichlet prior: one symmetric value or ``K`` values.

    Returns
    -------
    float
        The exact log-likelihood (0.0 for an empty document).

    Raises
    ------
    TealeavesError
        If there are more than :data:`MAX_ENUMERATION` assignments.
    InvalidModelError
        If ``phi`` or ``alpha`` is invalid.
    """
    phi = check_topic_word(phi)
    k = phi.shape[0]
    alpha = check_alpha(alpha, k)
    words = np.asarray(words, dtype=np.int64)
    if len(words) == 0:
        return 0.0
    if k ** len(words) > MAX_ENUMERATION:
        raise TealeavesError(
            f"enumerating {k}^{len(words)} assignments is too large (limit {MAX_ENUMERATION}); "
            "use a shorter document or an estimator"
        )
    z = np.array(list(itertools.product(range(k), repeat=len(words))), dtype=np.int64)
    counts = (z[:, :, None] == np.arange(k)).sum(axis=1)
    with np.errstate(divide="ignore"):
        log_lik = np.log(phi[z, words]).sum(axis=1)
    return float(logsumexp(log_dirichlet_multinomial(counts, alpha) + log_lik))


# -- per-document estimators on arrays --------------------------------------------
@shared_doc
def left_to_right(phi: np.ndarray, alpha: np.ndarray, corpus: Corpus, n_particles: int = 20, *,
                  resample: bool = True, weighted: bool = False, n_filters: int = 10,
                  score_from: np.ndarray | None = None, seed: int | None = 0, n_threads: int | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Per-document left-to-right estimates and standard errors.

    ``p(w) = prod_n p(w_n | w_<n)``.  With ``weighted=False`` (Wallach 2008, Alg. 5.1;
    Wallach et al. 2009, Alg. 3; MALLET) each factor is the average over particles of
    ``a_rn = sum_k (N_k^{<n} + alpha_k) / (n + sum alpha) phi_{k,w_n}``; the particles
    are never weighted, so the estimate is slightly biased and does not converge to
    ``p(w)`` as particles grow.  ``weighted=True`` runs the same moves as a proper
    sequential Monte Carlo sampler (importance weights ``a_rn``, resampling when the
    effective sample size halves): ``n_filters`` independent filters of
    ``n_particles // n_filters`` particles each (at most one filter per particle)
    whose unbiased estimates are averaged; the standard error is over filters.

    Parameters: %(estimator_phi)s %(estimator_alpha)s %(estimator_corpus)s
    n_particles : int, default 20
        Particles per document (>= 1).
    resample : bool, default True
        Rejuvenate ``z_<n`` by one Gibbs sweep before each position (quadratic in
        length; MALLET's default is ``False``).
    weighted : bool, default False
        Run as a weighted sequential Monte Carlo sampler (see above).
    n_filters : int, default 10
        Independent filters when ``weighted`` (at most ``n_particles``).
    score_from : numpy.ndarray or None, default None
        Only positions ``n >= score_from[d]`` are scored (document completion);
        None scores every position.
    %(estimator_seed)s %(estimator_threads)s

    Returns: %(returns_est)s %(returns_se)s

    Raises
    ------
    ParameterError
        If a count is not a whole number in range or a switch is not a bool.
    """
    n_particles = _check_count("n_particles", n_particles)
    resample, weighted = _check_flag("resample", resample), _check_flag("weighted", weighted)
    groups = 0
    if weighted:
        groups = min(_check_count("n_filters", n_filters), n_particles)
    return _run(_kernels.LEFT_TO_RIGHT, phi, alpha, corpus, n_particles, int(resample), groups,
                score_from=score_from, seed=seed, n_threads=n_threads)


@shared_doc
def importance_sampling(phi: np.ndarray, alpha: np.ndarray, corpus: Corpus, n_samples: int = 1000, *,
                        seed: int | None = 0, n_threads: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Importance sampling from the prior: ``log mean_s prod_n sum_k theta_sk phi_{k,w_n}``.

    ``theta_s ~ Dir(alpha)`` (Wallach et al. 2009, §4.1).

    Parameters: %(estimator_phi)s %(estimator_alpha)s %(estimator_corpus)s
    n_samples : int, default 1000
        Prior draws per document (>= 1).
    %(estimator_seed)s %(estimator_threads)s

    Returns: %(returns_est)s %(returns_se)s

    Raises
    ------
    ParameterError
        If ``n_samples`` is not a whole number >= 1.
    """
    n_samples = _check_count("n_samples", n_samples)
    return _run(_kernels.IMPORTANCE, phi, alpha, corpus, n_samples, seed=seed, n_threads=n_threads)


@shared_doc
def harmonic_mean(phi: np.ndarray, alpha: np.ndarray, corpus: Corpus, n_samples: int = 1000, *,
                  burn_in: int = 100, seed: int | None = 0, n_threads: int | None = None
                  ) -> tuple[np.ndarray, None]:
    """Harmonic mean of ``p(w | z_s)`` over Gibbs samples (Newton & Raftery 1994).  BIASED upwards.

    Returned only to demonstrate the bias Wallach et al. (2009) report; there is no standard error.

    Parameters: %(estimator_phi)s %(estimator_alpha)s %(estimator_corpus)s
    n_samples : int, default 1000
        Posterior Gibbs samples per document (>= 1).
    burn_in : int, default 100
        Gibbs sweeps discarded first (>= 0).
    %(estimator_seed)s %(estimator_threads)s

    Returns
    -------
    est : numpy.ndarray
        ``D`` per-document estimates of ``log p(w_d)`` (overestimates).
    se : None
        No standard error.

    Raises: %(raises_bad_count)s
    """
    n_samples = _check_count("n_samples", n_samples)
    burn_in = _check_count("burn_in", burn_in)
    est, _ = _run(_kernels.HARMONIC, phi, alpha, corpus, n_samples, burn_in, seed=seed, n_threads=n_threads)
    return est, None


def temperature_schedule(n_temperatures: int) -> np.ndarray:
    """Inverse temperatures ``beta_t = (t / T)^4``, ``t = 0..T`` (dense near 0).

    Parameters
    ----------
    n_temperatures : int
        ``T``, the number of annealing steps (>= 2).

    Returns
    -------
    numpy.ndarray
        The ``T + 1`` inverse temperatures from 0 to 1.

    Raises
    ------
    ParameterError
        If ``n_temperatures`` is not a whole number >= 2.
    """
    n_temperatures = _check_count("n_temperatures", n_temperatures)
    return np.linspace(0.0, 1.0, n_temperatures + 1) ** 4


@shared_doc
def annealed_importance_sampling(phi: np.ndarray, alpha: np.ndarray, corpus: Corpus, n_chains: int = 20,
                                 *, n_temperatures: int = 5000, seed: int | None = 0,
                                 n_threads: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """AIS over ``z`` with intermediate targets ``p(z|alpha) p(w|z)^beta`` (Wallach et al. 2009, §4.2).

    The log-weights of long documents are heavy-tailed unless the annealing is slow: on
    Reuters stories 1000 temperatures leave the estimate several nats per 100 stories low
    (and the delta-method standard error smaller than the spread over seeds); with 5000
    temperatures the chains agree with the other estimators and with their standard error.
    Annealed importance sampling is Neal (2001).

    Parameters: %(estimator_phi)s %(estimator_alpha)s %(estimator_corpus)s
    n_chains : int, default 20
        Independent AIS chains per document (>= 1).
    n_temperatures : int, default 5000
        Annealing steps (:func:`temperature_schedule`, >= 2).
    %(estimator_seed)s %(estimator_threads)s

    Returns: %(returns_est)s %(returns_se)s

    Raises: %(raises_bad_count)s
    """
    n_chains = _check_count("n_chains", n_chains)
    n_temperatures = _check_count("n_temperatures", n_temperatures)
    return _run(_kernels.ANNEALED, phi, alpha, corpus, n_chains, betas=temperature_schedule(n_temperatures),
                seed=seed, n_threads=n_threads)


@shared_doc
def chib_style(phi: np.ndarray, alpha: np.ndarray, corpus: Corpus, n_samples: int = 1000, *,
               n_chains: int = 4, burn_in: int = 100, seed: int | None = 0, n_threads: int | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """Chib-style estimator (Murray & Salakhutdinov 2009; Wallach et al. 2009, Alg. 2).

    ``p(w) = p(w, z*) / p(z* | w)``, ``p(z*|w)`` estimated by averaging the Gibbs
    transition probability into ``z*`` over ``n_samples`` states of each of
    ``n_chains`` independent chains.  Each chain searches its own ``z*`` (``burn_in``
    Gibbs sweeps, then iterated conditional modes), so the chains are independent
    replicates and the standard error over them includes the effect of the choice of ``z*``.

    Parameters: %(estimator_phi)s %(estimator_alpha)s %(estimator_corpus)s
    n_samples : int, default 1000
        Gibbs states per chain (>= 1).
    n_chains : int, default 4
        Independent chains (>= 1).
    burn_in : int, default 100
        Gibbs sweeps before the search for ``z*`` (>= 0).
    %(estimator_seed)s %(estimator_threads)s

    Returns: %(returns_est)s %(returns_se)s

    Raises: %(raises_bad_count)s
    """
    n_samples = _check_count("n_samples", n_samples)
    n_chains = _check_count("n_chains", n_chains)
    burn_in = _check_count("burn_in", burn_in)
    return _run(_kernels.CHIB, phi, alpha, corpus, n_samples, n_chains, burn_in, seed=seed,
                n_threads=n_threads)


_HM_WARNING = {"biased": True, "warning": "the harmonic mean overestimates log p(w) (Wallach et al. 2009); "
                                          "shown for comparison only, use left-to-right, chib or ais"}

_ESTIMATORS = {
    "left-to-right": (left_to_right, "n_particles"),
    "is": (importance_sampling, "n_samples"),
    "hm": (harmonic_mean, "n_samples"),
    "ais": (annealed_importance_sampling, "n_chains"),
    "chib": (chib_style, "n_samples"),
}


# -- model-level API ---------------------------------------------------------------
def _summarise(method: str, est: np.ndarray, se: np.ndarray | None, n_words: int, corpus: Corpus,
               signature: Signature, extra: dict) -> HeldOutEstimate:
    total = float(est.sum())
    total_se = None
    if se is not None and np.isfinite(se).all():
        total_se = float(math.sqrt(float((se ** 2).sum())))
    extra = {**extra, "standard_error_from": None if total_se is None else extra.get(
        "standard_error_from", "delta-method")}
    return HeldOutEstimate(method, total, total_se, perplexity(total, n_words), n_words, len(corpus),
                           corpus.n_dropped, signature, est, se, extra)


@shared_doc
def estimate_log_likelihood(model: object, corpus: Corpus, method: str = "left-to-right",
                            n_samples: int | None = None, *, seed: int | None = 0, replicates: int = 1,
                            n_threads: int | None = None, **options) -> HeldOutEstimate:
    """Estimate ``sum_d log p(w_d)`` of ``corpus`` under ``model`` with ``method`` (see :data:`METHODS`).

    Test words missing from the model's vocabulary are dropped and counted in
    ``n_dropped``; an empty document contributes 0.  Every parameter is checked
    first (:class:`~tealeaves.errors.ParameterError`): counts are whole numbers
    (not floats or bools), switches are bools, the seed a whole number or ``None``.
    The estimators are those of Wallach, Murray, Salakhutdinov & Mimno (2009).

    Parameters
    ----------
    model : object
        A fitted probabilistic tealeaves model with a Dirichlet prior (``doc_topic_prior_``).
    corpus : Corpus
        The test documents.
    method : str, default "left-to-right"
        One of :data:`METHODS`.
    n_samples : int or None, default None
        The number of particles (left-to-right), prior draws (is), posterior draws
        (hm), AIS chains (ais) or Chib states per chain (chib); None takes
        :data:`DEFAULT_SAMPLES`.
    seed : int or None, default 0
        Sampler seed in ``[0, 2**32)`` (None: fresh randomness).
    replicates : int, default 1
        With more than 1, run the estimator that many times with independent seeds
        and report the mean of the replicates' log estimates, with the standard error
        from their spread (:func:`replicate`).
    %(estimator_threads)s
    **options
        Go to the method's function (e.g. ``resample``, ``n_temperatures``,
        ``n_chains``, ``burn_in``).

    Returns
    -------
    HeldOutEstimate
        The estimate, its standard error, perplexity and signature.

    Raises
    ------
    ParameterError
        If ``method`` is unknown, an option is unknown or a value is out of range.
    InvalidModelError
        If the model has no prior ``alpha`` or a test word has probability zero under every topic.
    EmptyInputError
        If ``corpus`` shares no word with the model.
    """
    if not isinstance(method, str) or method not in _ESTIMATORS:
        raise ParameterError(f"unknown estimator {method!r}; choose one of {', '.join(METHODS)}")
    func, count_name = _ESTIMATORS[method]
    replicates = _check_count("replicates", replicates)
    n = DEFAULT_SAMPLES[method] if n_samples is None else _check_count(count_name, n_samples)
    seed = check_sampler_seed(seed)
    resolve_threads(n_threads)
    settings = _settings(func, options)
    phi, alpha = model_parameters(model, method)
    corpus = require_tokens(align_corpus(corpus, model.vocabulary_))
    _check_scorable(phi, corpus)
    if replicates == 1:
        est, se = func(phi, alpha, corpus, n, seed=seed, n_threads=n_threads, **options)
    else:
        def run(s):
            return func(phi, alpha, corpus, n, seed=s, n_threads=n_threads, **options)

        est, se = replicate(run, seed, replicates)
        settings["replicates"] = replicates
    fields = {"est": method, count_name.removeprefix("n_"): n, **settings, "seed": seed,
              "rng": _kernels.RNG_SCHEME, "model": describe(model)}
    extra = dict(_HM_WARNING) if method == "hm" else {}
    if replicates > 1:
        extra["standard_error_from"] = "replicates"
    return _summarise(method, est, se, corpus.n_tokens, corpus, Signature("loglik", fields), extra)


def replicate(run, seed: int | None, replicates: int) -> tuple[np.ndarray, np.ndarray]:
    """Mean and standard error of ``replicates`` independent runs' per-document log estimates.

    Run ``r`` gets the seed ``(seed, r)``.  The estimate is ``mean_r log p_r(w_d)`` and its
    standard error ``sd_r / sqrt(R)``.  Unlike the delta method over a run's own
    chains, which needs the variance of heavy-tailed importance weights, this
    measures the spread of the log estimates themselves, so it stays honest on long
    documents where the weights of a few chains dominate; the price is the bias of
    each replicate's smaller sample (``log mean`` is biased low).

    Parameters
    ----------
    run : callable
        ``run(seed)`` returns per-document ``(log estimates, standard errors)``.
    seed : int or None
        The base seed (None: every run gets fresh randomness).
    replicates : int
        ``R``, the number of runs (>= 2 for a standard error).

    Returns
    -------
    mean : numpy.ndarray
        Per-document mean of the runs' log estimates.
    se : numpy.ndarray
        Per-document ``sd_r / sqrt(R)``.
    """
    runs = np.array([run(None if seed is None else (seed, r))[0] for r in range(replicates)])
    return runs.mean(axis=0), runs.std(axis=0, ddof=1) / math.sqrt(replicates)


def _settings(func, options: dict) -> dict:
    """The method's keyword options, checked, with their defaults filled in, in signature order."""
    params = inspect.signature(func).parameters.values()
    defaults = {p.name: p.default for p in params if p.kind is p.KEYWORD_ONLY and p.name not in
                ("seed", "score_from", "n_threads")}
    unknown = set(options) - set(defaults)
    if unknown:
        raise ParameterError(f"unknown option(s) {sorted(unknown)}; this estimator takes {sorted(defaults)}")
    values = {name: options.get(name, default) for name, default in defaults.items()}
    for name, value in values.items():
        check = _check_flag if isinstance(defaults[name], bool) else _check_count
        values[name] = check(name, value)
    return {name.removeprefix("n_"): value for name, value in values.items()}


@shared_doc
def left_to_right_completion(model: object, test: Corpus, n_particles: int = 20, *, resample: bool = True,
                             weighted: bool = False, seed: int | None = 0, split_seed: int = 0,
                             min_length: int = 2, n_threads: int | None = None) -> HeldOutEstimate:
    """Document completion scored by left-to-right: ``log p(w_held | w_obs)`` (Wallach et al. 2009, §5).

    Uses the same random halves as point-estimate :func:`~tealeaves.likelihood.document_completion`
    (``split_seed``, ``min_length``); the left-to-right sampler runs over the
    observed half followed by the held-out half and sums the log-probabilities of
    the held-out positions only.  Parameters are checked as in :func:`estimate_log_likelihood`.

    Parameters
    ----------
    model : object
        A fitted probabilistic tealeaves model with a Dirichlet prior.
    %(completion_test)s
    n_particles : int, default 20
        Particles per document (>= 1).
    resample : bool, default True
        Rejuvenate the earlier assignments before each position (see :func:`left_to_right`).
    weighted : bool, default False
        Run as a weighted sequential Monte Carlo sampler.
    %(estimator_seed)s
    split_seed : int, default 0
        Seed of the random halves.
    min_length : int, default 2
        Documents with fewer tokens are skipped.
    %(estimator_threads)s

    Returns
    -------
    HeldOutEstimate
        The held-out estimate (``n_skipped_too_short`` in ``extra``).

    Raises
    ------
    ParameterError
        If a value is out of range.
    InvalidModelError
        If the model has no prior ``alpha`` or a held-out word has probability zero under every topic.
    """
    n_particles = _check_count("n_particles", n_particles)
    resample, weighted = _check_flag("resample", resample), _check_flag("weighted", weighted)
    seed = check_sampler_seed(seed)
    resolve_threads(n_threads)
    split_seed, min_length = check_split(split_seed, min_length)
    phi, alpha = model_parameters(model, "left-to-right-completion")
    observed, heldout, report = prepare_test(model, test, split_seed, min_length)
    _check_scorable(phi, heldout)
    joined = _concatenate(observed, heldout)
    est, se = left_to_right(phi, alpha, joined, n_particles, resample=resample, weighted=weighted,
                            score_from=observed.lengths, seed=seed, n_threads=n_threads)
    sig = completion_signature(describe(model), split_seed, min_length,
                               estimator=f"left-to-right/particles={n_particles}/resample={resample}"
                                         f"/weighted={weighted}/seed={seed}/rng={_kernels.RNG_SCHEME}")
    out = _summarise("left-to-right-completion", est, se, heldout.n_tokens, heldout, sig,
                     {"n_skipped_too_short": report.n_skipped_too_short})
    out.n_dropped = report.n_dropped_oov
    return out


def _concatenate(first: Corpus, second: Corpus) -> Corpus:
    """Each document of ``first`` followed by the same document of ``second``."""
    pieces = [np.concatenate([first.document(d), second.document(d)]) for d in range(len(first))]
    lengths = first.lengths + second.lengths
    tokens = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int32)
    return Corpus(first.vocabulary, tokens, np.concatenate([[0], np.cumsum(lengths)]), list(first.ids),
                  metadata=dict(first.metadata))
