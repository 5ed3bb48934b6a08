"""Compiled kernels of the polylingual topic model's collapsed Gibbs sampler.

Layout shared by the kernels (built by :mod:`tealeaves.models.polylingual`):

* ``tokens``: every token's *global* word id (language ``l``'s ids are
  shifted by ``word_offset[l]``), grouped into *segments*: one language side of
  one tuple, ``tokens[seg_start[s]:seg_start[s + 1]]``;
* ``seg_lang[s]``: the segment's language; ``seg_row[s]``: its row of
  document-topic counts (shared by all sides of a linked tuple, one per side
  for unlinked tuples);
* ``n_wk`` (``V_total x K``), ``n_lk`` (``L x K``), ``n_rk`` (``R x K``): the
  word-topic, language-topic and row-topic counts.

The sampling weight of topic ``k`` for word ``w`` of language ``l`` in row ``r``
is (Mimno et al. 2009, eq. for the PLTM collapsed conditional)::

    (n_rk + alpha_k) * (n_wk + beta_l) / (n_lk + V_l * beta_l)

computed as ``coef[k] * (n_wk + beta_l)`` with ``coef[k] = (n_rk + alpha_k) /
(n_lk + V_l beta_l)`` cached per segment and updated only for the two topics a
token leaves and joins (MALLET's ``cachedCoefficients``), so each token costs
one vectorised pass of multiply-adds for the normaliser plus a walk that stops
at the sampled topic.

:func:`sparse_sweep` samples the same conditional with MALLET's SparseLDA
buckets and per-word packed topic lists (``packed``, MALLET's ``typeTopicCounts``
without its sorting), so its cost per token grows with the topics a word and a
row use rather than with K.

Random numbers come from numba's Mersenne Twister (one state per thread; the
dense kernels) or from an inlined SplitMix64 generator (the sparse sweep), seeded
at the start of each call, so a run is repeated exactly by its seeds.  The
sampling kernels release the GIL, so chains can run in parallel threads.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from tealeaves import _compiled  # noqa: F401 - the notice on a terminal while numba compiles
from tealeaves._docs import shared_doc
from tealeaves.models._pltm_dirichlet import digamma, learn_dirichlet, learn_symmetric_concentration  # noqa: F401


@numba.njit(cache=True, nogil=True)
def init_topics(tokens, seg_start, seg_lang, seg_row, z, n_wk, n_lk, n_rk, seed):
    """Assign every token a uniformly random topic and fill the count tables.

    Topics come from numba's ``np.random`` seeded with ``seed``; each token is added to its
    word's, language's and row's counts, so the tables should start at zero.

    Parameters
    ----------
    tokens, seg_start, seg_lang, seg_row : numpy.ndarray
        The segments of the module docstring.
    z, n_wk, n_lk, n_rk : numpy.ndarray
        Each token's topic (int32) and the word-, language- and row-topic count tables of the
        module docstring (zero on entry), all written in place.
    seed : int
        Seed of numba's ``np.random`` for the initial topics.
    """
    np.random.seed(seed)
    n_topics = n_wk.shape[1]
    for s in range(len(seg_lang)):
        lang = seg_lang[s]
        row = seg_row[s]
        for i in range(seg_start[s], seg_start[s + 1]):
            k = np.random.randint(0, n_topics)
            z[i] = k
            n_wk[tokens[i], k] += 1
            n_lk[lang, k] += 1
            n_rk[row, k] += 1


@numba.njit(cache=True, inline="always")
def _inverse_totals(n_lk, beta_sum, taken_out):
    """``1 / (n_lk - taken_out + V_l beta_l)`` for every language and topic (an ``L x K`` array of floats)."""
    inv = np.empty(n_lk.shape)
    for lang in range(n_lk.shape[0]):
        for k in range(n_lk.shape[1]):
            inv[lang, k] = 1.0 / (n_lk[lang, k] - taken_out + beta_sum[lang])
    return inv


@numba.njit(cache=True, inline="always")
def _segment(s, seg_lang, seg_row, beta, beta_sum, inv, n_lk, n_rk):
    """Segment ``s``'s language, ``beta_l``, ``V_l beta_l``, and views of ``inv``, ``n_lk``, ``n_rk``."""
    lang = seg_lang[s]
    return lang, beta[lang], beta_sum[lang], inv[lang], n_lk[lang], n_rk[seg_row[s]]


@numba.njit(cache=True, fastmath=True, nogil=True)
@shared_doc
def gibbs_sweep(tokens, seg_start, seg_lang, seg_row, z, n_wk, n_lk, n_rk, alpha, beta, beta_sum, seed,
                splitmix=False):
    """One collapsed Gibbs sweep over every token, segment by segment.

    Each token is taken out of the counts and given a topic drawn from the collapsed
    conditional (Griffiths and Steyvers 2004, in the PLTM form of Mimno et al. 2009)
    ``p(k) ∝ (n_rk + alpha_k) * (n_wk + beta_l) / (n_lk + V_l * beta_l)``, through the
    cached ``coef[k]`` of the module docstring (the dense sampler: O(K) per token).
    Uniforms come from numba's ``np.random`` seeded with ``seed``, or with ``splitmix`` from
    :func:`_splitmix64` started at ``seed`` (the parallel sweep's per-thread streams: numba's
    generator state belongs to a pool thread, not to a piece of work).

    Parameters
    ----------
    %(pltm_segments)s %(pltm_z)s
    n_wk : numpy.ndarray
        Word-topic counts, ``V_total x K`` (updated in place).
    %(pltm_counts)s %(pltm_priors)s
    seed : int
        Seed of the sweep's random draws.
    splitmix : bool, default False
        Draw from :func:`_splitmix64` instead of numba's ``np.random``.
    """
    if not splitmix:
        np.random.seed(seed)
    rng = np.uint64(seed)
    n_topics = n_wk.shape[1]
    inv = _inverse_totals(n_lk, beta_sum, 0)
    coef = np.empty(n_topics)
    for s in range(len(seg_lang)):
        lang, b, bs, inv_l, n_l, n_r = _segment(s, seg_lang, seg_row, beta, beta_sum, inv, n_lk, n_rk)
        for k in range(n_topics):
            coef[k] = (n_r[k] + alpha[k]) * inv_l[k]
        for i in range(seg_start[s], seg_start[s + 1]):
            w = tokens[i]
            old = z[i]
            n_w = n_wk[w]
            n_w[old] -= 1
            n_r[old] -= 1
            n_l[old] -= 1
            inv_l[old] = 1.0 / (n_l[old] + bs)
            coef[old] = (n_r[old] + alpha[old]) * inv_l[old]
            total = 0.0
            for k in range(n_topics):  # vectorised: no stores
                total += coef[k] * (n_w[k] + b)
            if splitmix:
                rng, u = _splitmix64(rng)
            else:
                u = np.random.random()
            u *= total
            new = 0
            acc = coef[0] * (n_w[0] + b)
            while acc <= u and new < n_topics - 1:
                new += 1
                acc += coef[new] * (n_w[new] + b)
            z[i] = new
            n_w[new] += 1
            n_r[new] += 1
            n_l[new] += 1
            inv_l[new] = 1.0 / (n_l[new] + bs)
            coef[new] = (n_r[new] + alpha[new]) * inv_l[new]


def topic_bits(n_topics: int) -> int:
    """Bits needed for a topic id in MALLET's packed ``count << bits | topic`` cells.

    Parameters
    ----------
    n_topics : int
        The number of topics K (the cells hold the ids ``0`` to ``K - 1``).

    Returns
    -------
    int
        The bit length of ``K - 1``, at least 1.
    """
    return max(1, int(n_topics - 1).bit_length())


#: The sparse sweep's q pass reads a word's list in whole chunks of this many cells (masking those past
#: its used cells), so ``packed`` carries ``CHUNK - 1`` spare cells after the last word's room.
CHUNK = 8


def word_lists(tokens: np.ndarray, n_words: int, n_topics: int, dtype=None) -> tuple[np.ndarray, np.ndarray]:
    """Each word's room in the packed topic lists and the zeroed ``packed`` array (:func:`build_word_topics`).

    Word ``w`` gets ``min(K, frequency of w)`` cells from ``word_start[w]``; ``packed`` has
    ``CHUNK - 1`` spare cells at the end.  ``dtype=None`` picks 32-bit cells (half the memory
    traffic) whenever the largest count fits beside the topic bits, 64-bit ones otherwise.

    Parameters
    ----------
    tokens : numpy.ndarray
        Every token's global word id.
    n_words, n_topics : int
        The number of words V (all languages together) and of topics K.
    dtype : numpy dtype or None, optional
        The cells' integer type; None chooses as above.

    Returns
    -------
    word_start : numpy.ndarray
        ``V + 1`` int64 offsets: word ``w``'s room is ``packed[word_start[w]:word_start[w + 1]]``.
    packed : numpy.ndarray
        ``word_start[-1] + CHUNK - 1`` zeroed cells.
    """
    freq = np.bincount(tokens, minlength=n_words)
    room = np.minimum(freq, n_topics)
    word_start = np.concatenate([[0], np.cumsum(room)]).astype(np.int64)
    if dtype is None:
        small = len(tokens) == 0 or int(freq.max()) < 2 ** (31 - topic_bits(n_topics))
        dtype = np.int32 if small else np.int64
    return word_start, np.zeros(int(word_start[-1]) + CHUNK - 1, dtype=dtype)


@numba.njit(cache=True, nogil=True)
def build_word_topics(n_wk, word_start, packed, bits):
    """Fill MALLET's ``typeTopicCounts`` from the dense counts.

    Word ``w`` owns ``packed[word_start[w]:word_start[w + 1]]`` (room for
    ``min(K, frequency of w)`` cells); its non-zero topics are stored as
    ``count << bits | topic`` first, and the unused cells at the end are zero.
    They start sorted in descending order (so by count); :func:`sparse_sweep_spans`
    keeps them compact but not sorted.

    Parameters
    ----------
    n_wk : numpy.ndarray
        Word-topic counts, ``V x K``.
    word_start, packed, bits : numpy.ndarray, numpy.ndarray, int
        Each word's first cell (``V + 1`` offsets, :func:`word_lists`), the packed lists
        (:func:`build_word_topics`) and the topic bits of a cell (:func:`topic_bits`).
        ``packed`` is written in place.
    """
    n_words, n_topics = n_wk.shape
    for w in range(n_words):
        start = word_start[w]
        m = 0
        for k in range(n_topics):
            if n_wk[w, k] > 0:
                packed[start + m] = (np.int64(n_wk[w, k]) << bits) | k
                m += 1
        cells = np.sort(packed[start : start + m])[::-1]
        packed[start : start + m] = cells
        for j in range(start + m, word_start[w + 1]):
            packed[j] = 0


@numba.njit(cache=True, nogil=True)
def unpack_word_topics(packed, word_start, bits, n_wk):
    """Fill the dense ``V x K`` word-topic counts from the packed lists (see :func:`build_word_topics`).

    A word's list is read up to its first zero cell or the end of its room.

    Parameters
    ----------
    packed, word_start, bits : numpy.ndarray, numpy.ndarray, int
        The packed lists, each word's first cell (``V + 1`` offsets) and the topic bits of a cell.
    n_wk : numpy.ndarray
        Word-topic counts, ``V x K`` (zeroed, then filled in place).
    """
    mask = (np.int64(1) << bits) - 1
    n_wk[:] = 0
    for w in range(n_wk.shape[0]):
        j = word_start[w]
        while j < word_start[w + 1] and packed[j] > 0:
            n_wk[w, packed[j] & mask] = packed[j] >> bits
            j += 1


@numba.njit(cache=True, inline="always")
def _splitmix64(state):
    """SplitMix64 (Steele, Lea and Flood 2014): the next state and a uniform draw in [0, 1) (53 bits)."""
    state = state + _GAMMA
    return state, (_mix64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


#: SplitMix64's increment (the golden ratio in 64 bits).
_GAMMA = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(cache=True, inline="always")
def _mix64(x):
    """SplitMix64's output function (Stafford's Mix13): a 64-bit bijection that scatters every input bit."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@intrinsic
def _prefetch(typingctx, arr, idx):
    """Ask the CPU to fetch the cache line of ``arr[idx]`` (LLVM's ``llvm.prefetch``): a hint, no result."""
    sig = types.void(arr, idx)

    def codegen(context, builder, signature, args):
        aryty, idxty = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        index = context.cast(builder, args[1], idxty, types.intp)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [index], wraparound=False)
        i32, i8p = ir.IntType(32), ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        args = [builder.bitcast(ptr, i8p), ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)]
        builder.call(fn, args)  # read, keep in every cache level, data
        return context.get_dummy_value()

    return sig, codegen


#: How many tokens ahead :func:`sparse_sweep_spans` prefetches a word's topic list (a random access that
#: misses the cache once the lists outgrow it: 1.7 MB at K = 200 on the Bible).
PREFETCH_AHEAD = 8


def word_spans(tokens: np.ndarray, word_start: np.ndarray) -> np.ndarray:
    """Each token's first cell in ``packed`` (its word's list) and its word, as an ``n x 2`` array.

    Read in token order, they spare the sparse sweep a dependent random load of
    ``word_start`` before the list itself.

    Parameters
    ----------
    tokens, word_start : numpy.ndarray
        Every token's global word id, and each word's first cell (:func:`word_lists`).

    Returns
    -------
    numpy.ndarray
        C-contiguous ``(word_start[w], w)`` rows, int32 when the offsets fit, int64 otherwise.
    """
    dtype = np.int32 if word_start[-1] < 2**31 else np.int64
    return np.ascontiguousarray(np.stack([word_start[tokens], tokens], axis=1).astype(dtype))


@numba.njit(cache=True, nogil=True)
def used_cells(packed, word_start):
    """How many cells of each word's list in ``packed`` are in use (the non-zero ones, which come first).

    Parameters
    ----------
    packed, word_start : numpy.ndarray
        The packed lists, and each word's first cell (``V + 1`` offsets).

    Returns
    -------
    numpy.ndarray
        The ``V`` counts of used cells (int32).
    """
    n_words = len(word_start) - 1
    used = np.zeros(n_words, dtype=np.int32)
    for w in range(n_words):
        while word_start[w] + used[w] < word_start[w + 1] and packed[word_start[w] + used[w]] > 0:
            used[w] += 1
    return used


@numba.njit(cache=True, nogil=True)
@shared_doc
def sparse_sweep(tokens, seg_start, seg_lang, seg_row, z, n_lk, n_rk, alpha, beta, beta_sum,
                 word_start, packed, bits, seed, reset):
    """One SparseLDA sweep (:func:`sparse_sweep_spans`) from the tokens rather than the spans.

    The spans and used cells are derived from ``tokens``, ``word_start`` and ``packed`` (one
    sweep's bookkeeping; the model keeps them across sweeps).

    Parameters
    ----------
    %(pltm_segments)s %(pltm_z)s
    %(pltm_counts)s %(pltm_priors)s
    word_start, packed, bits : numpy.ndarray, numpy.ndarray, int
        Each word's first cell (``V + 1`` offsets, :func:`word_lists`), the packed lists
        (:func:`build_word_topics`) and the topic bits of a cell (:func:`topic_bits`).
        ``packed`` (updated in place) needs ``CHUNK - 1`` spare cells after the last word's room.
    seed : int
        Seed of the sweep's uniforms.
    reset : bool
        Reset the row's coefficients after each segment (False: MALLET's defect, :func:`sparse_sweep_spans`).

    Raises
    ------
    ValueError
        If ``packed`` lacks the ``CHUNK - 1`` spare cells (build it with :func:`word_lists`).
    """
    if len(packed) < word_start[-1] + CHUNK - 1:
        raise ValueError("packed needs CHUNK - 1 spare cells after the last word's room (use word_lists)")
    span = np.empty((len(tokens), 2), dtype=np.int64)
    for i in range(len(tokens)):
        span[i, 0] = word_start[tokens[i]]
        span[i, 1] = tokens[i]
    sparse_sweep_spans(seg_start, seg_lang, seg_row, z, n_lk, n_rk, alpha, beta, beta_sum, span, packed,
                       bits, seed, reset, used_cells(packed, word_start))


@numba.njit(cache=True, fastmath=True, nogil=True, error_model="numpy")
@shared_doc
def sparse_sweep_spans(seg_start, seg_lang, seg_row, z, n_lk, n_rk, alpha, beta, beta_sum, span, packed,
                       bits, seed, reset, used):
    """One collapsed Gibbs sweep with the SparseLDA buckets (Yao, Mimno and McCallum 2009).

    The weight of topic ``k`` for word ``w`` of language ``l`` in row ``r``,
    ``(n_rk + a_k)(n_wk + b_l) / (n_lk + V_l b_l)``, splits into three buckets

    * ``s = sum_k a_k b_l / (n_lk + V_l b_l)`` (smoothing only; kept per language),
    * ``r = sum_{k: n_rk > 0} n_rk b_l / (n_lk + V_l b_l)`` (the row's topics),
    * ``q = sum_{k: n_wk > 0} coef_lk n_wk`` with ``coef_lk = (a_k + n_rk) / (n_lk + V_l b_l)``
      (the word's topics, read from its ``packed`` list),

    whose sum is the exact normaliser, so the chain is the same collapsed Gibbs
    sampler as :func:`gibbs_sweep`, with a cost per token that grows with the
    number of topics the word and the row use rather than with K.  As in
    MALLET, ``coef`` holds ``a_k / (n_lk + V_l b_l)`` outside the current row;
    the row's topics are set at the start of a segment and reset at its end.
    ``reset=False`` skips that reset, reproducing MALLET's
    ``PolylingualTopicModel`` (whose coefficients keep earlier documents'
    counts: a defect, used only to measure its effect).  ``s`` is recomputed
    at the start of every sweep and ``r`` at the start of every segment, so
    rounding does not accumulate.  The buckets are computed for the state with
    the token taken out without writing it (``1 / (n_lk - 1 + V_l b_l)`` is
    cached beside ``1 / (n_lk + V_l b_l)``, so a token costs no division); only
    a token that changes topic updates the counts, lists and caches.  Token
    ``i``'s word is ``span[i, 1]`` and its list starts at ``packed[span[i, 0]]``
    (:func:`word_spans`), with ``used[w]`` cells in use (:func:`used_cells`);
    the list and count ``PREFETCH_AHEAD`` tokens on are prefetched.  The q mass
    is one pass without stores or early exit (numba vectorises it with masked
    gathers; the old topic's cell enters it with the token taken out, so
    nothing cancels, and the pass also finds that cell's position and count,
    so the draw waits for no further load).  The pass runs over the used cells
    rounded up to a multiple of ``CHUNK``, the cells past them masked out (they
    belong to the next word, or are ``packed``'s spare cells: :func:`word_lists`),
    so the vectorised loop has no scalar remainder: a branchy scalar tail and
    the vector loop reading the cells with gathers (numba's negative-index
    handling of ``packed[start + j]``) had cost about a seventh of a sweep.
    The cells are read at an unsigned index (``packed[base + j]``, ``base``
    and ``j`` ``uint64``: no negative-index fix-up, so the pass still
    vectorises); a view ``packed[start:]`` per token, as before, cost two
    atomic reference-count updates per token (numba's ``NRT_incref`` and
    ``NRT_decref``), about a tenth of a serial sweep (17-20 ms a sweep
    against 15-17, GibbsLDA, Reuters, K = 20, the same chain bit for bit),
    and more on several threads, which share the count.  The row's
    setup is two loops over K, the masses and coefficients (vectorised) apart
    from the list of the row's topics.  The draw compares with the old topic's
    term first (most tokens keep their topic, so most draws stop there) and
    otherwise picks the bucket and walks the list again up to the sampled cell.
    Unlike MALLET's, the lists are not kept sorted: a count that stays
    positive changes in place, an emptied cell takes the list's last used
    cell and a new topic is appended, so a move never bubbles cells.  The
    order of the cells, and so the chain for a seed, differs from a sorted
    list's; the conditional does not.  Uniforms come from
    :func:`_splitmix64` seeded with ``seed`` (numba's ``np.random.random`` costs
    about a fifth of a sparse token's time).  The dense word-topic counts are not
    touched (their rows do not stay in cache at large K); :func:`unpack_word_topics`
    rebuilds them from ``packed`` when they are needed.

    Parameters
    ----------
    seg_start, seg_lang, seg_row : numpy.ndarray
        The segments of the module docstring (over ``z``): starts, languages and rows.
    z : numpy.ndarray
        Each token's topic (int32, updated in place).
    %(pltm_counts)s %(pltm_priors)s
    span : numpy.ndarray
        Each token's first cell in ``packed`` and its word, ``n_tokens x 2`` (:func:`word_spans`).
    packed, bits : numpy.ndarray, int
        The packed lists (updated in place, ``CHUNK - 1`` spare cells) and a cell's topic bits.
    seed : int
        Seed of the SplitMix64 uniforms.
    reset : bool
        Reset the row's coefficients after each segment (False reproduces MALLET's defect).
    used : numpy.ndarray
        Each word's used cells (:func:`used_cells`; updated in place).
    """
    rng = np.uint64(seed)
    n_topics = n_lk.shape[1]
    n_lang = n_lk.shape[0]
    n_tokens = len(z)
    mask = (np.int64(1) << bits) - 1
    one = np.int64(1) << bits
    inv = _inverse_totals(n_lk, beta_sum, 0)  # 1 / (n_lk + V_l b_l)
    inv_out = _inverse_totals(n_lk, beta_sum, 1)  # 1 / (n_lk - 1 + V_l b_l): a token of topic k taken out
    coef = np.empty((n_lang, n_topics))
    smooth = np.zeros(n_lang)
    for lang in range(n_lang):
        for k in range(n_topics):
            coef[lang, k] = alpha[k] * inv[lang, k]
            smooth[lang] += alpha[k] * beta[lang] * inv[lang, k]
    nonzero = np.empty(n_topics, dtype=np.int64)  # the row's topics with n_rk > 0, in any order
    where = np.empty(n_topics, dtype=np.int64)  # position of a topic in ``nonzero``
    for s in range(len(seg_lang)):
        lang, b, bs, inv_l, n_l, n_r = _segment(s, seg_lang, seg_row, beta, beta_sum, inv, n_lk, n_rk)
        c_l = coef[lang]
        out_l = inv_out[lang]
        s_mass = smooth[lang]
        r_mass = 0.0
        for k in range(n_topics):  # vectorised: a topic the row lacks adds 0 and keeps c_l[k]
            r_mass += b * n_r[k] * inv_l[k]
            c_l[k] = (alpha[k] + n_r[k]) * inv_l[k] if n_r[k] > 0 else c_l[k]  # kept stale when reset=False
        n_nz = 0
        for k in range(n_topics):  # branch-free
            nonzero[n_nz] = k
            where[k] = n_nz
            n_nz += n_r[k] > 0
        for i in range(seg_start[s], seg_start[s + 1]):
            if i + PREFETCH_AHEAD < n_tokens:
                _prefetch(packed, span[i + PREFETCH_AHEAD, 0])
                _prefetch(used, span[i + PREFETCH_AHEAD, 1])
            old = z[i]
            start = span[i, 0]
            w = span[i, 1]
            # the old topic's terms with the token taken out, computed without changing the state,
            # so a token that keeps its topic (most of them once the chain settles) writes nothing
            nr_o = n_r[old] - 1
            inv_o = out_l[old]
            t_cur = b * inv_l[old]
            t_o = b * inv_o
            c_o = (alpha[old] + nr_o) * inv_o
            s_eff = s_mass + alpha[old] * (t_o - t_cur)
            r_eff = r_mass + nr_o * t_o - n_r[old] * t_cur
            n_q = used[w]
            q_mass = 0.0
            at_old = 0
            n_old = 0
            base = np.uint64(start)  # unsigned: no negative-index fix-up, so the pass still vectorises
            for j in range((n_q + CHUNK - 1) & -CHUNK):  # vectorised, masked gathers: no stores or early exit
                cell = packed[base + np.uint64(j)]
                k = cell & mask
                keep = j < n_q
                is_old = (k == old) & keep
                q_mass += ((c_o if is_old else c_l[k]) * ((cell >> bits) - is_old)) if keep else 0.0
                at_old = max(at_old, j if is_old else 0)
                n_old = max(n_old, (cell >> bits) if is_old else 0)
            rng, u = _splitmix64(rng)
            u *= s_eff + r_eff + q_mass
            acc = c_o * (n_old - 1)
            if u < acc:  # the old cell first (a term of q_mass): most tokens keep their topic and stop here
                continue
            at_new = -1
            if u < q_mass:
                while acc <= u and at_new < n_q - 1:
                    at_new += 1
                    cell = packed[base + np.uint64(at_new)]
                    acc += 0.0 if at_new == at_old else c_l[cell & mask] * (cell >> bits)
                new = packed[base + np.uint64(at_new)] & mask
            elif u < q_mass + r_eff:  # the row holds at least the old topic
                u -= q_mass
                j = 0
                k = nonzero[0]
                acc = nr_o * t_o if k == old else b * n_r[k] * inv_l[k]
                while acc <= u and j < n_nz - 1:
                    j += 1
                    k = nonzero[j]
                    acc += nr_o * t_o if k == old else b * n_r[k] * inv_l[k]
                new = nonzero[j]
            else:
                u -= q_mass + r_eff
                new = 0
                acc = alpha[0] * t_o if old == 0 else alpha[0] * b * inv_l[0]
                while acc <= u and new < n_topics - 1:
                    new += 1
                    acc += alpha[new] * t_o if new == old else alpha[new] * b * inv_l[new]
            if new == old:
                continue
            # the token moves: take it out of the old topic for real ...
            n_r[old] = nr_o
            n_l[old] -= 1
            inv_l[old] = inv_o
            out_l[old] = 1.0 / (n_l[old] - 1 + bs)
            c_l[old] = c_o
            s_mass = s_eff
            r_mass = r_eff
            if nr_o == 0:
                n_nz -= 1
                last = nonzero[n_nz]
                nonzero[where[old]] = last
                where[last] = where[old]
            j = start + at_old  # decrement the old cell; an emptied one takes the last used cell
            if n_old == 1:
                n_q -= 1
                used[w] = n_q
                packed[j] = packed[start + n_q]
                packed[start + n_q] = 0
                if at_new == n_q:
                    at_new = at_old
            else:
                packed[j] -= one
            # ... and put it in the new one (found by the walk, or searched for, or appended)
            if at_new < 0:
                at_new = 0
                while at_new < n_q and (packed[start + at_new] & mask) != new:
                    at_new += 1
                if at_new == n_q:
                    packed[start + at_new] = new
                    used[w] = n_q + 1
            packed[start + at_new] += one
            z[i] = new
            t = b * inv_l[new]
            s_mass -= alpha[new] * t
            r_mass -= n_r[new] * t
            if n_r[new] == 0:
                nonzero[n_nz] = new
                where[new] = n_nz
                n_nz += 1
            n_r[new] += 1
            n_l[new] += 1
            out_l[new] = inv_l[new]  # 1 / ((n_lk + 1) - 1 + V_l b_l), the value inv held until now
            inv_l[new] = 1.0 / (n_l[new] + bs)
            t = b * inv_l[new]
            s_mass += alpha[new] * t
            r_mass += n_r[new] * t
            c_l[new] = (alpha[new] + n_r[new]) * inv_l[new]
        smooth[lang] = s_mass
        if reset:
            for j in range(n_nz):
                k = nonzero[j]
                c_l[k] = alpha[k] * inv_l[k]


@numba.njit(cache=True, nogil=True)
def add_histograms(n_rk, topic_doc_hist, doc_len_hist):
    """Add the row-topic counts to MALLET's histograms, in one pass over ``n_rk``.

    ``topic_doc_hist[k, n]`` counts the rows with ``n_rk[r, k] == n`` (``n >= 1``) and
    ``doc_len_hist[n]`` the rows of ``n`` tokens, the statistics of the fixed-point update of
    ``alpha`` (Minka 2000; MALLET's ``learnParameters``).  Counts at or above the histograms' width
    are left out (a width of the longest row plus one holds them all).  A ``bincount`` per topic took
    3.4 ms at K = 80 on the Reuters stories, serial time between two parallel sweeps of about 15 ms,
    every ``sample_interval`` sweeps.

    Parameters
    ----------
    n_rk : numpy.ndarray
        Row-topic counts, rows x K.
    topic_doc_hist : numpy.ndarray
        ``K x width`` int64 histogram (updated in place).
    doc_len_hist : numpy.ndarray
        ``width`` int64 histogram of row lengths (updated in place).
    """
    width = doc_len_hist.shape[0]
    for r in range(n_rk.shape[0]):
        total = 0
        for k in range(n_rk.shape[1]):
            n = n_rk[r, k]
            total += n
            if 0 < n < width:
                topic_doc_hist[k, n] += 1
        if total < width:
            doc_len_hist[total] += 1


@numba.njit(cache=True, fastmath=True)
def fold_in_sweep(tokens, seg_start, seg_row, z, phi_t, n_rk, alpha, seed, init):
    """One Gibbs sweep for new documents with the topics fixed.

    ``phi_t`` is the ``V_total x K`` transposed topic-word matrix (every
    language's ``p(w | k)`` at its word offsets); the weight of topic ``k`` is
    ``(n_rk + alpha_k) * phi[k, w]``.  With ``init`` tokens start unassigned and
    are added one by one (sequential initialisation, as MALLET's inferencer);
    otherwise each is taken out of its row's counts before its draw: the collapsed
    conditional of Griffiths and Steyvers (2004) with the topics known.

    Parameters
    ----------
    tokens, seg_start, seg_row : numpy.ndarray
        Word ids (global), and each segment's start and row of ``n_rk``.
    z : numpy.ndarray
        Each token's topic (int32, updated in place).
    phi_t : numpy.ndarray
        The fixed topics, transposed: ``V_total x K``.
    n_rk : numpy.ndarray
        Row-topic counts, ``R x K`` (updated in place; zero when ``init``).
    alpha : numpy.ndarray
        The document-topic prior, ``K`` values.
    seed : int
        Seed of the sweep's random draws.
    init : bool
        The first sweep: tokens have no topic yet.
    """
    np.random.seed(seed)
    n_topics = phi_t.shape[1]
    cum = np.empty(n_topics)
    for s in range(len(seg_row)):
        n_r = n_rk[seg_row[s]]
        for i in range(seg_start[s], seg_start[s + 1]):
            w = tokens[i]
            if not init:
                n_r[z[i]] -= 1
            total = 0.0
            for k in range(n_topics):
                total += (n_r[k] + alpha[k]) * phi_t[w, k]
                cum[k] = total
            u = np.random.random() * total
            new = 0
            while new < n_topics - 1 and cum[new] <= u:
                new += 1
            z[i] = new
            n_r[new] += 1


# --------------------------------------------------------------------------------------------------
# one chain on several threads: tealeaves.models._pltm_parallel
# --------------------------------------------------------------------------------------------------
#: The serial kernels as the parallel ones call them: numba binds a kernel's globals when it compiles,
#: so these private names keep compiled code on the real kernels when the public names are wrapped in
#: Python (as tests/test_interrupts.py does to log the sweeps).
_serial_sparse = sparse_sweep_spans
_serial_dense = gibbs_sweep
