"""The polylingual topic model (Mimno et al. 2009), fitted by collapsed Gibbs sampling.

Each tuple ``t`` of an :class:`~tealeaves.corpus.aligned.AlignedCorpus` has one
topic distribution ``theta_t ~ Dirichlet(alpha)`` shared by all its language
sides; every language ``l`` has its own topics ``phi_lk ~ Dirichlet(beta_l)``
over its own vocabulary, and each token of side ``l`` draws ``z ~ theta_t`` and
``w ~ phi_lz``.  Collapsing ``theta`` and ``phi`` gives the conditional

    p(z_i = k | rest) ∝ (n_tk + alpha_k) (n_wk + beta_l) / (n_lk + V_l beta_l)

where ``n_tk`` counts the tuple's tokens in topic ``k`` over *all* its
languages.  Hyperparameters are re-estimated as MALLET's
``PolylingualTopicModel`` does: after ``optimize_burn_in`` iterations, every
``sample_interval`` iterations the document-topic count histograms are
collected, and every ``optimize_interval`` iterations ``alpha`` is updated by
Minka's fixed point exactly as MALLET's ``Dirichlet.learnParameters`` (shape
1.00001, scale 1) and each ``beta_l`` by the symmetric-concentration fixed
point (see :mod:`tealeaves.models._pltm_kernels`).  Two exact samplers are
available: ``dense`` (linear in K) and ``sparse`` (MALLET's SparseLDA buckets,
sub-linear in K); unlike MALLET's ``PolylingualTopicModel``, the sparse one
resets its cached coefficients after every document (docs/polylingual.md).

``link_fraction`` < 1 keeps only that share of tuples linked (chosen at random
with the seed); the sides of the other tuples become separate documents, each
with its own ``theta`` (Hao et al. 2018, Figure 7).
"""

from __future__ import annotations

import time
import warnings
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np
from scipy.special import gammaln

from tealeaves import _interrupt
from tealeaves._docs import shared_doc
from tealeaves._params import check_params, renamed_parameters, warn_renamed
from tealeaves._threads import available_cores, part_pool, resolve_threads
from tealeaves.corpus import Corpus
from tealeaves.corpus.aligned import AlignedCorpus, LanguageMismatchError, language_code
from tealeaves.errors import EmptyInputError, InvalidModelError, TealeavesError
from tealeaves.models import _pltm_kernels as kern
from tealeaves.models import _pltm_parallel as par
from tealeaves.models._pltm_params import FIT_PARAMS, N_TOP, TRANSFORM_PARAMS
from tealeaves.models._polylingual_layout import _chain_seed, _Layout, _layout, _seeds
from tealeaves.models.base import check_alpha
from tealeaves.models.polylingual_language import PLTMLanguageModel
from tealeaves.validation import check_choice, check_int

#: The Gibbs samplers: both exact; ``auto`` picks ``sparse`` from ``SPARSE_FROM_K`` topics, ``dense`` below.
SAMPLERS = ("auto", "sparse", "dense")

#: From this K the sparse sampler is used by ``auto``: it is at least as fast as the dense one at K = 20
#: on the Bible and on Reuters (benchmarks/pltm.py, benchmarks/lda_gibbs.py) and far faster above.
SPARSE_FROM_K = 20

#: A chain on several threads samples up to this many sweeps in one call when nothing reads its state
#: in between (:meth:`PolylingualTopicModel._batch_end`): a call's hand-off to the threads and their
#: final wait cost 0.3-0.4 ms (GibbsLDA, Reuters, K = 20, a 2-thread sweep of about 10 ms).
MAX_BATCH = 10


def resolve_sampler(sampler: str, n_components: int) -> str:
    """The sampler ``auto`` stands for at ``n_components`` topics (others are returned unchanged).

    Parameters
    ----------
    sampler : str
        One of :data:`SAMPLERS`.
    n_components : int
        The number of topics K.

    Returns
    -------
    str
        ``"sparse"`` from :data:`SPARSE_FROM_K` topics and ``"dense"`` below for ``"auto"``, else
        ``sampler``.

    Raises
    ------
    ParameterError
        When ``sampler`` is not one of :data:`SAMPLERS`.
    """
    check_choice(sampler, "sampler", SAMPLERS)
    if sampler == "auto":
        return "sparse" if n_components >= SPARSE_FROM_K else "dense"
    return sampler


class SweepDone(NamedTuple):
    """What :meth:`PolylingualTopicModel.fit`'s ``callback`` receives after each Gibbs sweep of each chain.

    Parameters
    ----------
    chain : int
        0-based chain number.
    sweep : int
        Sweeps this chain has done, 1 to ``n_sweeps``.
    n_sweeps : int
        The model's ``n_iter``.
    n_chains : int
        The model's number of chains.
    n_tokens : int
        Tokens sampled per sweep.
    cpu_seconds : float
        This chain's sampling CPU time so far (as in ``sampling_cpu_seconds_``).
    """

    chain: int  #: 0-based chain number
    sweep: int  #: sweeps this chain has done, 1 to ``n_sweeps``
    n_sweeps: int  #: the model's ``n_iter``
    n_chains: int
    n_tokens: int  #: tokens sampled per sweep
    cpu_seconds: float  #: this chain's sampling CPU time so far (as in ``sampling_cpu_seconds_``)


class PolylingualTopicModel:
    """Polylingual LDA with a MALLET-style collapsed Gibbs sampler (numba-compiled).

    The polylingual topic model of Mimno et al. (2009), sampled as collapsed Gibbs sampling for LDA
    (Griffiths and Steyvers 2004), with ``alpha`` and ``beta`` re-estimated by Minka's fixed-point
    updates (Minka 2000) as MALLET does.  The bounds of every setting are declared once in
    :data:`FIT_PARAMS` (also the options of ``tealeaves pltm fit``) and checked by :meth:`fit`.

    Parameters
    ----------
    n_components : int, default 20
        K, the number of topics (``n_topics`` is its deprecated old name).
    alpha : float, default 0.1
        Initial symmetric Dirichlet parameter of each topic in ``theta`` (a per-topic value;
        MALLET's ``--alpha`` is the sum ``K * alpha``).
    beta : float, default 0.01
        Initial symmetric Dirichlet parameter of every language's topics.
    n_iter : int, default 1000
        Gibbs sweeps.
    optimize_interval : int, default 50
        Re-estimate ``alpha`` and ``beta`` every this many sweeps (0 disables).
    optimize_burn_in : int, default 200
        Sweeps that pass before the first optimisation.
    sample_interval : int, default 5
        After ``optimize_burn_in``, histograms are collected every this many sweeps.
    n_chains : int, default 1
        Independent chains (seeds derived from ``random_state``); the one with the highest final
        log-likelihood is kept and every chain's final log-likelihood is in
        ``chain_log_likelihoods_``.
    link_fraction : float, default 1.0
        Share of tuples kept linked (1 = every tuple shares one ``theta``); the others are split
        into monolingual documents.
    evaluate_every : int, default 10
        Record the log-likelihood every this many sweeps.
    random_state : int or None, default 0
        Integer seed; the same seed repeats a fit exactly.
    n_jobs : int, default 1
        Chains run in this many threads at once (the kernels release the GIL); results do not
        depend on it.
    sampler : str, default "auto"
        ``"sparse"`` (MALLET's SparseLDA buckets, cost per token sub-linear in K), ``"dense"``
        (one pass over all K topics per token) or ``"auto"`` (default: sparse from
        ``SPARSE_FROM_K`` = 20 topics, where it is the faster one; dense below).  Both sample the
        same conditional exactly; for a given seed they give different chains, since they map the
        same random numbers to topics in different orders.  ``sampler_`` is the one used.
    n_threads : int or None, default None
        Threads sampling one chain (``None``, the default: every core this process may use).  1
        runs the exact serial chain; more split the tuples into ``4 n_threads`` ranges and the
        words into ``n_threads`` groups (balanced by tokens and by sampling cost); each thread
        keeps a word group and walks the ranges, and no two threads share a word or, at once, a
        tuple, so only the language-topic totals are approximate (each thread sees the others'
        changes up to the previous sweep; Yan, Xu and Qi 2009, tomotopy's partition scheme;
        :mod:`tealeaves.models._pltm_parallel`).  The chain then depends on the thread count
        (recorded in ``n_threads_`` and in :meth:`description`), not on which threads run it: the
        same seed and ``n_threads`` repeat a fit exactly (docs/polylingual.md).  Hyperparameters
        are still optimised between sweeps.

    Attributes
    ----------
    languages_ : list of str
        The languages of the training corpus.
    vocabularies_ : dict
        Language -> :class:`~tealeaves.corpus.Vocabulary`.
    topic_word_ : dict
        Language -> ``K x V_l`` topic-word probabilities.
    doc_topic_ : numpy.ndarray
        Tuples x K.
    alpha_ : numpy.ndarray
        The length-K ``alpha``.
    beta_ : dict
        Language -> float.
    log_likelihood_trace_, log_likelihood_iterations_ : list
        The log-likelihood and the sweeps it was recorded at.
    linked_ : numpy.ndarray
        Tuple mask of the linked tuples.
    n_tokens_ : int
        Tokens sampled per sweep.
    sampling_seconds_ : float
        Wall time of all chains.
    sampling_cpu_seconds_ : float
        This thread's CPU time in the kept chain's Gibbs sweeps, for throughput (with ``n_threads_``
        > 1, the sweeps' wall time: the work is on several threads).
    n_threads_ : int
        The threads (ranges of tuples) each chain was sampled on; 1 for the exact serial chain.
    """

    @renamed_parameters({"n_topics": "n_components"})
    def __init__(
        self,
        n_components: int = 20,
        alpha: float = 0.1,
        beta: float = 0.01,
        n_iter: int = 1000,
        optimize_interval: int = 50,
        optimize_burn_in: int = 200,
        sample_interval: int = 5,
        n_chains: int = 1,
        link_fraction: float = 1.0,
        evaluate_every: int = 10,
        random_state: int | None = 0,
        n_jobs: int = 1,
        sampler: str = "auto",
        n_threads: int | None = None,
    ):
        self.n_components = n_components
        self.alpha = alpha
        self.beta = beta
        self.n_iter = n_iter
        self.optimize_interval = optimize_interval
        self.optimize_burn_in = optimize_burn_in
        self.sample_interval = sample_interval
        self.n_chains = n_chains
        self.link_fraction = link_fraction
        self.evaluate_every = evaluate_every
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.sampler = sampler
        self.n_threads = n_threads

    @property
    def n_topics(self) -> int:
        """Deprecated old name of ``n_components`` (one ``FutureWarning``)."""
        warn_renamed("n_topics", "n_components", "PolylingualTopicModel")
        return self.n_components

    #: False reproduces MALLET's PolylingualTopicModel, which never resets its cached
    #: coefficients after a document (a defect; docs/polylingual.md); for measurement only.
    _reset_coefficients = True

    # -- fitting ------------------------------------------------------------
    def _check_params(self, corpus: AlignedCorpus) -> None:
        if not isinstance(corpus, AlignedCorpus):
            raise TypeError(
                f"PolylingualTopicModel.fit expects an AlignedCorpus, got {type(corpus).__name__}; "
                "build one with AlignedCorpus.from_texts or a reader in tealeaves.corpus.parallel"
            )
        corpus.require_nonempty("PLTM training corpus")
        names = [n for n in FIT_PARAMS if n != "alpha" or np.ndim(self.alpha) == 0]  # a vector: check_alpha
        check_params(FIT_PARAMS, {n: getattr(self, n) for n in names})
        for name in ("evaluate_every", "sample_interval"):  # not options of ``pltm fit``: checked here
            check_int(getattr(self, name), name, min_value=1)
        self.sampler_ = resolve_sampler(self.sampler, int(self.n_components))
        self.n_threads_ = resolve_threads(getattr(self, "n_threads", 1))
        _warn_oversubscribed(self.n_threads_)
        for lang in corpus.languages:
            if corpus.corpora[lang].n_tokens == 0:
                raise EmptyInputError(
                    f"language {lang!r} has no tokens in the training corpus; drop it "
                    "(AlignedCorpus.select_languages) or relax its preprocessing"
                )
        sizes = {lang: len(corpus.vocabulary(lang)) for lang in corpus.languages}
        small = min(sizes, key=sizes.get)
        if int(self.n_components) > sizes[small]:  # as check_fit_input of the monolingual models
            raise InvalidModelError(
                f"PolylingualTopicModel: n_components={self.n_components} is larger than the {small} "
                f"vocabulary ({sizes[small]} words); choose fewer topics or a larger vocabulary "
                "(relax min_df/max_features)")

    def fit(self, corpus: AlignedCorpus, callback: Callable[[SweepDone], None] | None = None
            ) -> PolylingualTopicModel:
        """Fit on the tuples of ``corpus``; runs ``n_chains`` chains and keeps the best.

        Parameters
        ----------
        corpus : AlignedCorpus
            The training tuples.
        callback : callable, optional
            If given, called with a :class:`SweepDone` after every sweep of every chain, in sweep
            order within a chain (chains run with ``n_jobs`` > 1 call it from their threads,
            interleaved).  It only observes: the fit is the same with or without it.

        Returns
        -------
        PolylingualTopicModel
            ``self``, fitted.

        Raises
        ------
        TypeError
            When ``corpus`` is not an :class:`~tealeaves.corpus.aligned.AlignedCorpus`.
        ParameterError
            When a setting is out of the bounds of :data:`FIT_PARAMS`.
        EmptyInputError
            When the corpus, or one of its languages, has no tokens.
        """
        self._check_params(corpus)
        K = int(self.n_components)
        self.languages_ = list(corpus.languages)
        self.vocabularies_ = {x: corpus.vocabulary(x) for x in self.languages_}
        sizes = np.array([len(self.vocabularies_[x]) for x in self.languages_], dtype=np.int64)
        self._offsets = np.concatenate([[0], np.cumsum(sizes)])
        link_rng = np.random.default_rng(_chain_seed(self.random_state, 2**31))
        n_linked = int(round(float(self.link_fraction) * len(corpus)))
        linked = np.zeros(len(corpus), dtype=bool)
        linked[link_rng.permutation(len(corpus))[:n_linked]] = True
        self.linked_ = linked
        lay = _layout(corpus, self.languages_, self._offsets, linked)
        self.n_tokens_ = int(len(lay.tokens))
        self.n_tuples_ = len(corpus)
        start = time.perf_counter()
        chains = range(int(self.n_chains))
        workers = max(1, min(int(self.n_jobs), len(chains)))
        if workers == 1:
            results = [self._run_chain(lay, sizes, K, c, callback) for c in chains]
        else:
            # Ctrl-C while the main thread waits sets the stop flag, which every chain checks per sweep
            with _interrupt.sigint_sets_flag(), ThreadPoolExecutor(max_workers=workers) as pool:
                results = list(pool.map(lambda c: self._run_chain(lay, sizes, K, c, callback), chains))
        self.sampling_seconds_ = time.perf_counter() - start
        self.chain_log_likelihoods_ = np.array([r["log_likelihood"] for r in results])
        self.best_chain_ = int(np.argmax(self.chain_log_likelihoods_))
        self._store(results[self.best_chain_], lay, sizes)
        return self

    def _run_chain(self, lay: _Layout, sizes: np.ndarray, K: int, chain: int,
                   callback: Callable[[SweepDone], None] | None = None) -> dict:
        """Sample one chain (one kernel call per sweep, or per :meth:`_batch_end`'s run of sweeps on
        several threads; ``callback`` after each sweep); returns its counts, hyperparameters and
        likelihood trace."""
        L = len(sizes)
        seeds = _seeds(_chain_seed(self.random_state, chain), int(self.n_iter) + 1)
        z = np.zeros(len(lay.tokens), dtype=np.int32)
        n_wk = np.zeros((int(sizes.sum()), K), dtype=np.int32)
        n_lk = np.zeros((L, K), dtype=np.int32)
        n_rk = np.zeros((lay.n_rows, K), dtype=np.int32)
        kern.init_topics(lay.tokens, lay.seg_start, lay.seg_lang, lay.seg_row, z, n_wk, n_lk, n_rk, seeds[0])
        alpha = check_alpha(self.alpha, K)
        beta = np.full(L, float(self.beta))
        beta_sum = beta * sizes
        row_len = np.bincount(lay.seg_row, weights=np.diff(lay.seg_start), minlength=lay.n_rows)
        max_len = int(row_len.max()) if len(row_len) else 0
        topic_doc_hist = np.zeros((K, max_len + 1), dtype=np.int64)
        doc_len_hist = np.zeros(max_len + 1, dtype=np.int64)
        trace, trace_it = [], []
        seconds = 0.0
        sweep, counts = self._sweeper(lay, n_wk, K)
        clock = time.thread_time if self.n_threads_ == 1 else time.perf_counter  # parallel: wall time
        batches = getattr(sweep, "batches", False)
        it = 1
        while it <= int(self.n_iter):
            _interrupt.check()  # a chain in a pool thread stops on Ctrl-C (the main thread's raises itself)
            if self._optimize_now(it) and doc_len_hist.sum() > 0:  # skip until a histogram sample exists
                kern.learn_dirichlet(alpha, topic_doc_hist, doc_len_hist, 1.00001, 1.0, 200)
                self._optimize_betas(counts(), n_lk, sizes, beta, beta_sum)
                topic_doc_hist[:] = 0
                doc_len_hist[:] = 0
            last = self._batch_end(it) if batches else it
            t0 = clock()
            sweep(z, n_lk, n_rk, alpha, beta, beta_sum, seeds[it : last + 1] if batches else seeds[it])
            each = (clock() - t0) / (last - it + 1)
            for done in range(it, last + 1):  # only the last of a batch can have an event after it
                seconds += each
                if self._histogram_now(done):
                    kern.add_histograms(n_rk, topic_doc_hist, doc_len_hist)
                if self._evaluate_now(done):
                    trace.append(_log_likelihood(counts(), n_lk, n_rk, alpha, beta, sizes))
                    trace_it.append(done)
                if callback is not None:
                    callback(SweepDone(chain, done, int(self.n_iter), int(self.n_chains), len(lay.tokens),
                                       seconds + counts.seconds))
            it = last + 1
        sweep.finish(z)
        return {
            "z": z, "n_wk": counts(), "n_lk": n_lk, "n_rk": n_rk, "alpha": alpha.copy(), "beta": beta.copy(),
            "trace": np.array(trace), "trace_it": np.array(trace_it), "log_likelihood": trace[-1],
            "seconds": seconds + counts.seconds,
        }

    def _sweeper(self, lay: _Layout, n_wk: np.ndarray, K: int):
        """The chosen kernel as ``sweep(z, n_lk, n_rk, alpha, beta, beta_sum, seed)``, and ``counts()``.

        ``sweep.finish(z)`` brings the chain's ``z`` up to date once the sweeps are over (a chain on
        several threads keeps its topics in another order in between).

        ``counts()`` returns the current word-topic counts ``n_wk``.  The sparse
        kernel keeps them as MALLET-style packed topic lists of every word (with
        each token's list start and word, and each list's used cells), built here
        from the initial counts; ``counts()`` unpacks them into
        ``n_wk`` (once after each sweep, only when asked: its time is counted as
        sampling time).
        """
        args = (lay.tokens, lay.seg_start, lay.seg_lang, lay.seg_row)
        P = getattr(self, "n_threads_", 1)  # set by fit; a sweeper built outside a fit is the serial one
        if resolve_sampler(self.sampler, K) == "dense":
            def dense_counts():
                return n_wk

            dense_counts.seconds = 0.0
            def serial(z, *rest):
                return kern.gibbs_sweep(*args, z, n_wk, *rest)

            if P == 1:
                serial.finish = _in_place
                return serial, dense_counts
            none = np.zeros(1, dtype=np.int32)  # the sparse sampler's arrays, unused
            return _threaded(lay, P, n_wk, True, np.zeros((1, 2), np.int32), none, 1, True, none), \
                dense_counts
        word_start, packed = kern.word_lists(lay.tokens, n_wk.shape[0], K)
        bits = kern.topic_bits(K)
        span = kern.word_spans(lay.tokens, word_start)
        kern.build_word_topics(n_wk, word_start, packed, bits)
        used = kern.used_cells(packed, word_start)
        reset = bool(self._reset_coefficients)
        stale = [False]  # n_wk is behind the packed lists

        def serial_sweep(z, n_lk, n_rk, alpha, beta, beta_sum, seed):
            kern.sparse_sweep_spans(*args[1:], z, n_lk, n_rk, alpha, beta, beta_sum, span, packed, bits, seed,
                                    reset, used)

        chosen = serial_sweep if P == 1 else _threaded(lay, P, n_wk, False, span, packed, bits,
                                                       reset, used)

        def sweep(*sweep_args):
            chosen(*sweep_args)
            stale[0] = True

        sweep.finish = getattr(chosen, "finish", _in_place)
        sweep.batches = getattr(chosen, "batches", False)

        def counts():
            if stale[0]:
                t0 = time.thread_time()
                kern.unpack_word_topics(packed, word_start, bits, n_wk)
                counts.seconds += time.thread_time() - t0
                stale[0] = False
            return n_wk

        counts.seconds = 0.0
        return sweep, counts

    def _histogram_now(self, it: int) -> bool:
        """Whether the document-topic histograms are collected after sweep ``it`` (MALLET's schedule)."""
        return bool(self.optimize_interval) and it >= self.optimize_burn_in and it % self.sample_interval == 0

    def _evaluate_now(self, it: int) -> bool:
        """Whether the log-likelihood is recorded after sweep ``it`` (every ``evaluate_every``; the last)."""
        return it % max(int(self.evaluate_every), 1) == 0 or it == int(self.n_iter)

    def _batch_end(self, it: int) -> int:
        """The last sweep of a call of the threaded sampler that starts at sweep ``it``: at most
        :data:`MAX_BATCH` sweeps, ending where something reads the state (histograms, likelihood,
        optimisation) or at ``n_iter``."""
        last = it
        while (last < int(self.n_iter) and last - it + 1 < MAX_BATCH and not self._histogram_now(last)
               and not self._evaluate_now(last) and not self._optimize_now(last + 1)):
            last += 1
        return last

    def _optimize_now(self, it: int) -> bool:
        """MALLET's schedule: after the burn-in, every ``optimize_interval`` sweeps."""
        every = int(self.optimize_interval)
        return every > 0 and it > self.optimize_burn_in and it % every == 0

    def _optimize_betas(self, n_wk, n_lk, sizes, beta, beta_sum) -> None:
        """Re-estimate each language's symmetric ``beta`` from its word-topic counts."""
        for li in range(len(sizes)):
            block = n_wk[self._offsets[li] : self._offsets[li + 1]]
            counts = np.bincount(block[block > 0].ravel())
            lengths = np.bincount(n_lk[li].astype(np.int64))
            beta_sum[li] = kern.learn_symmetric_concentration(
                counts.astype(np.int64), lengths.astype(np.int64), int(sizes[li]), float(beta_sum[li]), 200
            )
            beta[li] = beta_sum[li] / sizes[li]

    def _store(self, res: dict, lay: _Layout, sizes: np.ndarray) -> None:
        """Fitted attributes from the kept chain."""
        self.alpha_ = res["alpha"]
        self.beta_ = {x: float(res["beta"][i]) for i, x in enumerate(self.languages_)}
        self.log_likelihood_trace_ = res["trace"]
        self.log_likelihood_iterations_ = res["trace_it"]
        self.sampling_cpu_seconds_ = res["seconds"]
        n_wk, n_rk = res["n_wk"], res["n_rk"]
        self.topic_word_ = {}
        for li, x in enumerate(self.languages_):
            block = n_wk[self._offsets[li] : self._offsets[li + 1]].T.astype(np.float64)
            phi = block + res["beta"][li]
            self.topic_word_[x] = phi / phi.sum(axis=1, keepdims=True)
        self._n_rk = n_rk
        self._lay = lay
        self.doc_topic_ = self._tuple_theta(n_rk, lay, self.n_tuples_)

    def _tuple_theta(self, n_rk: np.ndarray, lay: _Layout, n_tuples: int) -> np.ndarray:
        """``theta`` per tuple: (counts over all its sides + alpha), normalised.

        For a linked tuple this is its shared ``theta``; for an unlinked one it
        pools its sides; a tuple without tokens gets the prior mean.
        """
        counts = np.zeros((n_tuples, n_rk.shape[1]))
        rows, first = np.unique(lay.seg_row, return_index=True)  # each row once, with a segment's tuple
        np.add.at(counts, lay.seg_tuple[first], n_rk[rows])  # integer counts: exact in any order
        theta = counts + self.alpha_
        return theta / theta.sum(axis=1, keepdims=True)

    @shared_doc
    def language_doc_topic(self, lang: str) -> np.ndarray:
        """``theta`` of each training tuple's side in ``lang`` (tuples x K), from its own row.

        Linked tuples return their shared ``theta``; unlinked ones the side's
        own; tuples without tokens in ``lang`` the tuple's ``doc_topic_`` row.

        Parameters
        ----------
        %(pltm_lang)s

        Returns
        -------
        numpy.ndarray
            Tuples x K proportions.
        """
        li = self._language_index(lang)
        out = self.doc_topic_.copy()
        lay = self._lay
        sel = lay.seg_lang == li
        rows = self._n_rk[lay.seg_row[sel]] + self.alpha_
        out[lay.seg_tuple[sel]] = rows / rows.sum(axis=1, keepdims=True)
        return out

    # -- using the fitted model ------------------------------------------------
    def _check_fitted(self) -> None:
        if not hasattr(self, "topic_word_"):
            raise TealeavesError("this PolylingualTopicModel is not fitted yet; call fit() first")

    def _language_index(self, lang: str) -> int:
        self._check_fitted()
        code = language_code(lang)
        if code not in self.languages_:
            raise LanguageMismatchError(
                f"the model has no language {lang!r}; its languages are {self.languages_}"
            )
        return self.languages_.index(code)

    @renamed_parameters({"n": "n_top"})
    @shared_doc
    def top_word_ids(self, lang: str, n_top: int = 10) -> np.ndarray:
        """``K x n_top`` ids of each topic's most probable words in ``lang`` (ties by id).

        Parameters
        ----------
        %(pltm_lang)s
        n_top : int, default 10
            Words per topic, 1 to 1000, as in :meth:`top_words` (``n`` is its deprecated old name).

        Returns
        -------
        numpy.ndarray
            ``K x n_top`` word ids, best first.
        """
        return self.language_model(lang).top_word_ids(N_TOP.check(n_top))

    @renamed_parameters({"n": "n_top"})
    @shared_doc
    def top_words(self, lang: str, n_top: int = 10) -> list[list[str]]:
        """Each topic's ``n_top`` most probable words in ``lang``.

        Parameters
        ----------
        %(pltm_lang)s
        n_top : int
            Words per topic, 1 to 1000 (:data:`N_TOP`; ``n`` is its deprecated old name).

        Returns
        -------
        list of list of str
            One list of words per topic, best first.
        """
        return self.language_model(lang).top_words(N_TOP.check(n_top))

    @shared_doc
    def language_model(self, lang: str) -> PLTMLanguageModel:
        """The monolingual view of language ``lang``: a :class:`TopicModel` over its vocabulary.

        Parameters
        ----------
        %(pltm_lang)s

        Returns
        -------
        PLTMLanguageModel
            The view.

        Raises
        ------
        LanguageMismatchError
            When the model has no language ``lang``.
        """
        li = self._language_index(lang)
        return PLTMLanguageModel(self, self.languages_[li])

    def transform(
        self, corpus: AlignedCorpus, n_iter: int = 100, burn_in: int = 50, thin: int = 5,
        random_state: int | None = None,
    ) -> np.ndarray:
        """Infer ``theta`` for new tuples with the topics fixed (Gibbs fold-in).

        Every tuple's sides share one ``theta`` (tuples are treated as linked).
        Tokens are initialised sequentially, then ``n_iter`` sweeps run; the
        estimate ``(n_tk + alpha) / (N_t + sum alpha)`` is averaged over every
        ``thin``-th sweep after ``burn_in``.  The corpus must use the model's
        vocabularies (encode held-out texts with the training preprocessors,
        ``fit=False``); languages absent from the model raise an error, and a
        tuple without tokens gets the prior mean ``alpha / sum(alpha)``.  ``n_iter``, ``burn_in``
        and ``random_state`` are checked against :data:`TRANSFORM_PARAMS`.

        Parameters
        ----------
        corpus : AlignedCorpus
            The new tuples, over the model's vocabularies.
        n_iter : int, default 100
            Fold-in sweeps.
        burn_in : int, default 50
            Sweeps discarded before averaging.
        thin : int, default 5
            Average every this many sweeps.
        random_state : int or None, optional
            Seed (default: the model's).

        Returns
        -------
        numpy.ndarray
            Tuples x K proportions.

        Raises
        ------
        LanguageMismatchError
            When a language is not the model's, none is, or a vocabulary differs from the model's.
        """
        self._check_fitted()
        check_params(TRANSFORM_PARAMS, {"n_iter": n_iter, "burn_in": burn_in, "random_state": random_state})
        lay = self._fold_in_layout(corpus)
        K = self.alpha_.shape[0]
        seq = _chain_seed(self.random_state if random_state is None else random_state, 10_000)
        seeds = _seeds(seq, n_iter + 1)
        phi_t = np.ascontiguousarray(np.concatenate([self.topic_word_[x].T for x in self.languages_]))
        z = np.zeros(len(lay.tokens), dtype=np.int32)
        n_rk = np.zeros((lay.n_rows, K), dtype=np.int32)
        args = (lay.tokens, lay.seg_start, lay.seg_row, z, phi_t, n_rk, self.alpha_)
        kern.fold_in_sweep(*args, seeds[0], True)
        acc = np.zeros((lay.n_rows, K))
        n_samples = 0
        for it in range(1, n_iter + 1):
            kern.fold_in_sweep(*args, seeds[it], False)
            if it > burn_in and (it - burn_in) % thin == 0:
                theta = n_rk + self.alpha_
                acc += theta / theta.sum(axis=1, keepdims=True)
                n_samples += 1
        if n_samples == 0:
            theta = n_rk + self.alpha_
            return theta / theta.sum(axis=1, keepdims=True)
        return acc / n_samples

    def _fold_in_layout(self, corpus: AlignedCorpus) -> _Layout:
        """Check languages and vocabularies of new tuples and lay them out (one row per tuple)."""
        if not isinstance(corpus, AlignedCorpus):
            raise TypeError(f"transform expects an AlignedCorpus, got {type(corpus).__name__}")
        common = [x for x in corpus.languages if x in self.languages_]
        if not common:
            raise LanguageMismatchError(
                f"the tuples' languages {corpus.languages} have none in common with the model's "
                f"{self.languages_}; encode the texts in at least one of the model's languages"
            )
        extra = [x for x in corpus.languages if x not in self.languages_]
        if extra:
            raise LanguageMismatchError(
                f"languages {extra} are not in the model {self.languages_}; drop them with "
                "AlignedCorpus.select_languages"
            )
        for x in common:
            if corpus.vocabulary(x) != self.vocabularies_[x]:
                raise LanguageMismatchError(
                    f"language {x!r} is encoded over a different vocabulary than the model's; encode new "
                    "texts with the training preprocessors (ParallelTexts.to_aligned(train.preprocessors, "
                    "fit=False))"
                )
        empty = {x: Corpus(self.vocabularies_[x], np.zeros(0, np.int32), np.zeros(len(corpus) + 1, np.int64),
                           list(corpus.ids)) for x in self.languages_ if x not in common}
        full = AlignedCorpus(
            self.languages_,
            {x: corpus.corpora[x] if x in common else empty[x] for x in self.languages_},
            {x: corpus.present[x] if x in common else np.zeros(len(corpus), bool) for x in self.languages_},
            list(corpus.ids),
        )
        return _layout(full, self.languages_, self._offsets, np.ones(len(corpus), dtype=bool))

    def description(self) -> str:
        """Short description for signatures.

        Returns
        -------
        str
            ``PLTM/K<K>/<languages>/it<n_iter>/link<link_fraction>/seed<random_state>``, followed by
            ``/threads<n>`` for a chain sampled on ``n`` > 1 threads (:func:`threads_label`).
        """
        return (
            f"PLTM/K{self.n_components}/{'-'.join(getattr(self, 'languages_', []))}/it{self.n_iter}"
            f"/link{self.link_fraction:g}/seed{self.random_state}{threads_label(self)}"
        )


def threads_label(model) -> str:
    """The part of a Gibbs model's description that names its thread count: ``/threads<n>``, or ``""``.

    The exact serial chain (``n_threads_`` = 1, or a model fitted before threads existed) keeps
    the description it always had; a chain on several threads names its thread count,
    which changes the numbers.

    Parameters
    ----------
    model : object
        A :class:`PolylingualTopicModel` or :class:`~tealeaves.models.lda_gibbs.GibbsLDA`, fitted or not.

    Returns
    -------
    str
        ``"/threads<n>"`` when fitted on ``n`` > 1 threads, else ``""``.
    """
    n = getattr(model, "n_threads_", 1)
    return f"/threads{n}" if n > 1 else ""


def _in_place(z: np.ndarray) -> None:
    """A serial chain's ``sweep.finish``: its sweeps write the chain's ``z`` themselves."""


def _warn_oversubscribed(n_threads: int) -> None:
    """Warn when one chain asks for more threads than this process's cores.

    The chain is then the one ``n_threads`` threads sample on any machine, but its threads wait for
    one another at each of the ``4 P x P`` blocks of a sweep (:mod:`~tealeaves.models._pltm_parallel`):
    on 2 cores a sweep of a 9-token corpus took 0.4 s at 64 threads and 2.7 s at 128.

    Parameters
    ----------
    n_threads : int
        The chain's threads (``n_threads_``).
    """
    cores = available_cores()
    if n_threads > cores:
        warnings.warn(f"n_threads={n_threads} is more than the {cores} cores this process may use: the "
                      f"chain is the one {n_threads} threads sample anywhere, but its threads take turns on "
                      f"the cores and wait for one another, so it may run many times slower than with "
                      f"n_threads={cores}", UserWarning, stacklevel=4)


def _threaded(lay: _Layout, n_threads: int, n_wk: np.ndarray, dense: bool,
              span: np.ndarray, packed: np.ndarray, bits: int, reset: bool, used: np.ndarray) -> Callable:
    """Sweeps ``sweep(z, n_lk, n_rk, alpha, beta, beta_sum, seeds)`` of one chain on ``n_threads`` threads,
    one per seed in ``seeds``.

    Every sweep, from the first, is parallel: :func:`~tealeaves.models._pltm_parallel.parallel_sweeps`
    over the chain's partitioned token order (:func:`~tealeaves.models._pltm_parallel.plan`, made here),
    one :func:`_interrupt.call` a call (part 0 in its helper thread), the other parts in a pool of
    the chain's own (:func:`~tealeaves._threads.part_pool`); the threads' views of the totals
    (:func:`~tealeaves.models._pltm_parallel.pipeline`) carry over between calls, and
    ``sweep.restart(n_lk)`` starts them afresh when the totals were changed by other means.
    (Earlier versions ran the first 10 sweeps serially, a remedy for the AD-LDA scheme's threads
    labelling topics differently; the partition scheme's word-topic counts are exact, and without
    those sweeps 2 and 3 threads recovered the planted topics in 40 fits of 40, with final
    log-likelihoods level with the serial chains': docs/models-gibbs.md.)
    The kernel is looked up at each call, so a test can wrap it.  The parallel sweeps keep the topics
    in the plan's order; ``sweep.finish(z)`` writes them to the chain's ``z`` at the end.
    """
    plan = par.plan(lay.tokens, lay.seg_start, lay.seg_lang, lay.seg_row, n_threads, n_wk.shape[0],
                    0 if dense else n_wk.shape[1])
    tokens = lay.tokens[plan.perm]
    span = span[plan.perm] if not dense else span
    state = {"z": None}  # the topics in the plan's order and the threads' views, kept between calls

    def run(*call_args):
        return par.parallel_sweeps(*call_args, pool=state["pool"])

    run.__name__ = "parallel_sweeps"

    def sweep(z, n_lk, n_rk, alpha, beta, beta_sum, seeds):
        if state["z"] is None:
            state["z"] = z[plan.perm]
            state["views"] = par.pipeline(n_lk, n_threads)
            state["pool"] = part_pool(n_threads)  # the chain's own: chains in threads (n_jobs) share none
            weakref.finalize(sweep, state["pool"].shutdown, wait=False)
        _interrupt.call(run, plan, state["views"], seeds, state["z"], n_lk, n_rk, alpha, beta, beta_sum,
                        dense, tokens, n_wk, span, packed, bits, reset, used)

    def finish(z):
        if state["z"] is not None:
            par.chain_order(plan, state["z"], z)

    def restart(n_lk):  # the chain's state was changed outside these sweeps (benchmarks/parallel_gibbs.py)
        state["views"] = par.pipeline(n_lk, n_threads)

    sweep.finish = finish
    sweep.batches = True  # takes an array of seeds: several sweeps in one call
    sweep.restart = restart
    sweep.plan = plan  # with plan_topics, what benchmarks/parallel_gibbs.py --paired reads
    sweep.plan_topics = lambda: state["z"]
    return sweep


def _log_likelihood(n_wk, n_lk, n_rk, alpha, beta, sizes) -> float:
    """Joint ``log p(w, z)``, ``theta`` and every ``phi_l`` integrated out (MALLET's modelLogLikelihood)."""
    a_sum = alpha.sum()
    ll = float(np.sum(gammaln(n_rk + alpha) - gammaln(alpha)))
    ll += len(n_rk) * gammaln(a_sum) - float(np.sum(gammaln(n_rk.sum(axis=1) + a_sum)))
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    for li in range(len(sizes)):
        block = n_wk[offsets[li] : offsets[li + 1]]
        nz = block[block > 0]
        ll += float(np.sum(gammaln(nz + beta[li]) - gammaln(beta[li])))
        bsum = beta[li] * sizes[li]
        ll += float(np.sum(gammaln(bsum) - gammaln(n_lk[li] + bsum)))
    return ll
