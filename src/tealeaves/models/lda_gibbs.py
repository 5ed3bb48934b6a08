"""LDA fitted by collapsed Gibbs sampling on the polylingual model's kernels (one language).

LDA (Blei, Ng and Jordan 2003) is the polylingual topic model with a single
language, so :class:`GibbsLDA` fits it with
:class:`~tealeaves.models.polylingual.PolylingualTopicModel` on a one-language
aligned corpus: the same numba sampler (SparseLDA buckets by default, Yao,
Mimno and McCallum 2009), the same seeded chains and MALLET's hyperparameter
optimisation (Minka's fixed point for an asymmetric ``alpha`` every
``optimize_interval`` sweeps after ``optimize_burn_in``, and the symmetric ``beta``).
The collapsed conditional is

    p(z_i = k | rest) ∝ (n_dk + alpha_k) (n_kw + beta) / (n_k + V beta).

``n_threads`` > 1 (the default ``None``: every core) samples one chain on several threads, documents and
words partitioned so that only the topic totals are shared (Yan, Xu and Qi 2009, tomotopy's
partition scheme), the sparse sampler in each thread; ``n_threads=1`` is the exact serial chain
(docs/models-gibbs.md).

``transform`` is a seeded Gibbs fold-in with the topics fixed (the PLTM's
inference with one language), not tealeaves' variational ``infer_theta``.
"""

from __future__ import annotations

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves._params import renamed_parameters, warn_renamed
from tealeaves._threads import resolve_threads
from tealeaves.corpus import Corpus
from tealeaves.corpus.aligned import AlignedCorpus
from tealeaves.errors import TealeavesError
from tealeaves.models._fit import check_fit_input, check_transform_input
from tealeaves.models.base import TopicModel
from tealeaves.models.polylingual import SAMPLERS, PLTMLanguageModel, PolylingualTopicModel, threads_label
from tealeaves.validation import check_choice, check_float, check_int, check_seed

#: The name of the single language of the one-language aligned corpus (internal).
_LANG = "text"


def _one_language(corpus: Corpus) -> AlignedCorpus:
    """``corpus`` as an aligned corpus with one language and every document present."""
    present = np.ones(len(corpus), dtype=bool)
    return AlignedCorpus([_LANG], {_LANG: corpus}, {_LANG: present}, list(corpus.ids))


class GibbsLDA(TopicModel):
    """LDA by collapsed Gibbs sampling with MALLET's hyperparameter optimisation (numba-compiled).

    Collapsed Gibbs sampling as in Griffiths and Steyvers (2004); ``alpha`` and ``beta`` are
    re-estimated by Minka's fixed-point updates (Minka 2000, as in MALLET).

    Parameters
    ----------
    n_components : int, default 10
        K.
    n_iter : int, default 1000
        Gibbs sweeps.
    alpha : float, default 0.1
        Initial symmetric ``alpha_k`` **per topic** (MALLET's ``--alpha`` is the sum ``K * alpha``).
    beta : float, default 0.01
        Initial symmetric topic-word prior.
    optimize_interval : int, default 50
        Re-estimate ``alpha`` and ``beta`` every this many sweeps (0 keeps them fixed).
    optimize_burn_in : int, default 200
        Sweeps that pass before the first optimisation (MALLET's ``--optimize-burn-in``; the old
        name ``burn_in=`` still works, with a ``FutureWarning``).
    sample_interval : int, default 5
        After ``optimize_burn_in``, the document-topic histograms are collected every this many
        sweeps (MALLET's ``saveSampleInterval``).
    n_chains : int, default 1
        Independent chains seeded from ``random_state``; the one with the highest final
        log-likelihood is kept (``n_jobs`` threads sample them).
    sampler : str, default "auto"
        ``"sparse"`` (SparseLDA buckets), ``"dense"`` or ``"auto"`` (default: sparse from 20
        topics, where it is the faster); all exact.
    evaluate_every : int, default 10
        Record ``log p(w, z)`` every this many sweeps.
    random_state : int or None, default 0
        Integer seed; the same seed repeats a fit exactly.
    n_jobs : int, default 1
        Threads sampling the chains; results do not depend on it.
    n_threads : int or None, default None
        Threads sampling each chain (``None``, the default: every core this process may use).  1
        runs the exact serial chain; more split the documents into ``4 n_threads`` ranges and the
        words into ``n_threads`` groups (balanced by tokens and by sampling cost); each thread
        keeps a word group and walks the ranges, and no two threads share a word or, at once, a
        document, so only the topic totals are approximate (each thread sees the others' changes
        up to the previous sweep).  The chain is the same for a given seed and ``n_threads`` on
        any machine; it differs between thread counts (recorded in ``n_threads_`` and the
        description).

    Attributes
    ----------
    vocabulary_ : Vocabulary
        The training corpus's vocabulary.
    topic_word_ : numpy.ndarray
        ``K x V``, ``(n_kw + beta) / (n_k + V beta)``.
    doc_topic_ : numpy.ndarray
        Training documents, ``(n_dk + alpha_k) / (N_d + sum alpha)``.
    doc_topic_prior_ : numpy.ndarray
        The optimised ``alpha``.
    beta_ : float
        The optimised ``beta``.
    log_likelihood_trace_, log_likelihood_iterations_ : list
        ``log p(w, z)`` and the sweeps it was recorded at.
    chain_log_likelihoods_ : list
        The final log-likelihood of every chain.
    n_tokens_ : int
        Tokens sampled.
    sampling_cpu_seconds_ : float
        The kept chain's sampling CPU time.
    sampler_ : str
        The sampler used.
    n_threads_ : int
        The threads each chain was sampled on (1: the exact serial chain).
    metadata_ : dict
        Description, source, the corpus's preprocessing.
    pltm_ : PolylingualTopicModel
        The underlying one-language polylingual model.
    """

    @renamed_parameters({"burn_in": "optimize_burn_in"})
    def __init__(
        self,
        n_components: int = 10,
        n_iter: int = 1000,
        alpha: float = 0.1,
        beta: float = 0.01,
        optimize_interval: int = 50,
        optimize_burn_in: int = 200,
        sample_interval: int = 5,
        n_chains: int = 1,
        sampler: str = "auto",
        evaluate_every: int = 10,
        random_state: int | None = 0,
        n_jobs: int = 1,
        n_threads: int | None = None,
    ):
        self.n_components = n_components
        self.n_iter = n_iter
        self.alpha = alpha
        self.beta = beta
        self.optimize_interval = optimize_interval
        self.optimize_burn_in = optimize_burn_in
        self.sample_interval = sample_interval
        self.n_chains = n_chains
        self.sampler = sampler
        self.evaluate_every = evaluate_every
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.n_threads = n_threads

    def _sampler_model(self) -> PolylingualTopicModel:
        """The one-language PLTM with this model's validated settings."""
        return PolylingualTopicModel(
            n_components=check_int(self.n_components, "n_components", min_value=1),
            alpha=check_float(self.alpha, "alpha", min_value=0.0, include_min=False),
            beta=check_float(self.beta, "beta", min_value=0.0, include_min=False),
            n_iter=check_int(self.n_iter, "n_iter", min_value=1),
            optimize_interval=check_int(self.optimize_interval, "optimize_interval", min_value=0),
            optimize_burn_in=check_int(self.optimize_burn_in, "optimize_burn_in", min_value=0),
            sample_interval=check_int(self.sample_interval, "sample_interval", min_value=1),
            n_chains=check_int(self.n_chains, "n_chains", min_value=1),
            evaluate_every=check_int(self.evaluate_every, "evaluate_every", min_value=1),
            random_state=None if self.random_state is None else check_seed(self.random_state, "random_state"),
            n_jobs=check_int(self.n_jobs, "n_jobs", min_value=1),
            sampler=check_choice(self.sampler, "sampler", SAMPLERS),
            n_threads=resolve_threads(getattr(self, "n_threads", 1)),
        )

    @property
    def burn_in(self) -> int:
        """Deprecated name of :attr:`optimize_burn_in`."""
        warn_renamed("burn_in", "optimize_burn_in", "GibbsLDA")
        return self.optimize_burn_in

    def __setstate__(self, state: dict) -> None:
        """Unpickle, reading a model pickled when ``optimize_burn_in`` was called ``burn_in``."""
        if "burn_in" in state:
            state["optimize_burn_in"] = state.pop("burn_in")
        self.__dict__.update(state)

    @shared_doc
    def fit(self, corpus: Corpus) -> GibbsLDA:
        """Sample ``n_chains`` chains on ``corpus`` and keep the best (see the class docstring).

        Parameters: %(fit_corpus)s

        Returns
        -------
        GibbsLDA
            ``self``, fitted; ``pltm_`` is the one-language model sampled.
        """
        check_fit_input(corpus, self.n_components, "GibbsLDA")
        pltm = self._sampler_model().fit(_one_language(corpus))
        self.pltm_ = pltm
        self.vocabulary_ = corpus.vocabulary
        self.topic_word_ = pltm.topic_word_[_LANG]
        self.doc_topic_ = pltm.doc_topic_
        self.doc_topic_prior_ = pltm.alpha_
        self.beta_ = pltm.beta_[_LANG]
        self.log_likelihood_trace_ = pltm.log_likelihood_trace_
        self.log_likelihood_iterations_ = pltm.log_likelihood_iterations_
        self.chain_log_likelihoods_ = pltm.chain_log_likelihoods_
        self.n_tokens_ = pltm.n_tokens_
        self.sampler_ = pltm.sampler_
        self.sampling_cpu_seconds_ = pltm.sampling_cpu_seconds_
        self.n_threads_ = pltm.n_threads_
        from tealeaves._version import __version__

        self.metadata_ = {
            "description": self.description(),
            "source": {"library": "tealeaves", "version": __version__, "class": "GibbsLDA",
                       "sampler": self.sampler_, "n_threads": self.n_threads_},
            "preprocessing": corpus.metadata.get("preprocessing"),
        }
        return self

    @shared_doc
    def transform(
        self, corpus: Corpus, n_iter: int = 100, burn_in: int = 50, thin: int = 5,
        random_state: int | None = None,
    ) -> np.ndarray:
        """``theta`` of new documents by seeded Gibbs fold-in with the topics fixed.

        Tokens are placed sequentially, then ``n_iter`` sweeps run with weights
        ``(n_dk + alpha_k) phi_kw``; ``theta`` is averaged over every ``thin``-th
        sweep after ``burn_in`` (sweeps discarded before averaging: not the fit's
        ``optimize_burn_in``; see ``docs/naming.md``).  The seed is ``random_state`` (default: the
        model's), so it repeats exactly; an empty document gets ``alpha / sum alpha``.

        Parameters
        ----------
        corpus : Corpus
            Documents over the model's vocabulary.
        n_iter, burn_in, thin : int, default 100, 50 and 5
            The fold-in sweeps, the first ones discarded, and the interval of the averaged ones.
        random_state : int or None, optional
            The fold-in's seed (default: the model's).

        Returns: %(returns_doc_topic)s

        Raises
        ------
        TealeavesError
            When the model is not fitted.
        %(raises_not_corpus)s
        """
        if not hasattr(self, "pltm_"):
            raise TealeavesError("this GibbsLDA is not fitted yet; call fit() first")
        if not isinstance(corpus, Corpus):
            raise TypeError(f"GibbsLDA.transform expects a tealeaves Corpus, got {type(corpus).__name__}")
        check_transform_input(self, corpus)
        view = PLTMLanguageModel(self.pltm_, _LANG)
        return view.transform(corpus, n_iter=n_iter, burn_in=burn_in, thin=thin, random_state=random_state)

    def description(self) -> str:
        """Short, signature-safe name of the fit.

        Returns
        -------
        str
            ``gibbs-lda/K<K>/it<n_iter>/opt<optimize_interval>/<sampler>/seed<random_state>``, followed
            by ``/threads<n>`` for a chain sampled on ``n`` > 1 threads.
        """
        sampler = getattr(self, "sampler_", self.sampler)
        return (f"gibbs-lda/K{self.n_components}/it{self.n_iter}/opt{self.optimize_interval}"
                f"/{sampler}/seed{self.random_state}{threads_label(self)}")
