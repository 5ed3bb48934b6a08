"""Construction of human-evaluation items (Chang et al. 2009 §3; Hao et al. 2018 §5.1).

Every builder takes a :class:`numpy.random.Generator` and is deterministic
given its seed.  Items are plain dicts (JSON-ready); the keys shared by all
tasks are ``id``, ``task``, ``options`` (the allowed responses, as strings),
``check`` (True for attention-check items) and, where the task has one,
``answer`` (the correct response: the intruder) or ``expected`` (the
responses a check item accepts).

A topic that cannot yield a valid item (fewer than six distinct candidate
words, no admissible intruder) is not an error of the whole study: builders
return it in an ``excluded`` list with the reason, and the study records it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves.errors import EmptyInputError, StudyError

WORD_INTRUSION = "word_intrusion"
TOPIC_INTRUSION = "topic_intrusion"
RATING = "rating"
MULTILINGUAL_RATING = "multilingual_rating"
TASKS = (WORD_INTRUSION, TOPIC_INTRUSION, RATING, MULTILINGUAL_RATING)

#: Rating scale of Lau et al. (2014) and Hao et al. (2018): response -> label.
RATING_SCALE = {"2": "coherent", "1": "somewhat coherent", "0": "incoherent"}


def word_keys(vocabulary: Sequence[str], seed: int = 0) -> np.ndarray:
    """The tie-break key of every word: a permutation of the words drawn from ``seed``, keyed by the word.

    The key of ``w`` is the first eight bytes (little-endian ``uint64``) of
    ``SHA-256(f"{seed}\\x00{w}")``: it depends only on the seed and the word
    string, never on the word's column, so ranking ties broken by it are the
    same whatever order the vocabulary is in, and, unlike alphabetical order,
    do not favour any part of the alphabet.

    Parameters
    ----------
    vocabulary : sequence of str
        The words.
    seed : int
        The study's seed.

    Returns
    -------
    numpy.ndarray
        One ``uint64`` key per word, in the order of ``vocabulary``.
    """
    import hashlib

    def key(word: str) -> int:
        blob = f"{seed}\x00{word}".encode("utf-8", "surrogatepass")
        return int.from_bytes(hashlib.sha256(blob).digest()[:8], "little")

    return np.fromiter((key(w) for w in vocabulary), dtype=np.uint64, count=len(vocabulary))


def topic_rankings(model, seed: int = 0) -> np.ndarray:
    """``K x V`` array of word ids of each topic, most probable first.

    Words of equal probability are ordered by :func:`word_keys` (the study
    seed's permutation keyed by the word string), then by word id (only if
    two columns hold the same string).  Where a topic has no ties this is the
    model's own ``top_word_ids`` ranking; where it has (tomotopy and MALLET
    give every word a topic never drew one and the same probability), the
    ranking no longer depends on the order of the vocabulary columns.

    Parameters
    ----------
    model : object
        A fitted model with ``topic_word_weights_`` (``K x V``) and ``vocabulary_``.
    seed : int
        Seed of the tie-break keys.

    Returns
    -------
    numpy.ndarray
        ``K x V`` word ids, each row most probable first.
    """
    weights = np.asarray(model.topic_word_weights_, dtype=np.float64)
    keys = word_keys([str(w) for w in model.vocabulary_], seed)
    n_topics, n_words = weights.shape
    ids = np.broadcast_to(np.arange(n_words), weights.shape)
    # lexsort: the last key is primary; by -weight, then the word's key, then its id
    return np.lexsort((ids, np.broadcast_to(keys, weights.shape), -weights), axis=1)


@shared_doc
def intruder_candidates(rankings: np.ndarray, k: int, n_top: int = 5, other_top: int = 10) -> np.ndarray:
    """Word ids admissible as topic ``k``'s intruder (Chang et al. 2009 §3), in topic ``k``'s rank order.

    A candidate lies in the bottom half of topic ``k``'s ranking (rank
    ``>= ceil(V / 2)``), is among the ``other_top`` most probable words of at
    least one other topic, and is not among topic ``k``'s ``n_top`` words.
    The order (by rank, not by word id) keeps the draw independent of the
    vocabulary's column order.

    Parameters
    ----------
    rankings : numpy.ndarray
        ``K x V`` word ids of each topic, most probable first (:func:`topic_rankings`).
    %(item_topic)s
    n_top : int
        Topic ``k``'s words shown in the item, never candidates.
    other_top : int
        How many of another topic's most probable words qualify.

    Returns
    -------
    numpy.ndarray
        The candidates' word ids.
    """
    n_words = rankings.shape[1]
    bottom = rankings[k, (n_words + 1) // 2:]
    others = np.delete(rankings[:, :other_top], k, axis=0).ravel()
    keep = np.isin(bottom, others) & ~np.isin(bottom, rankings[k, :n_top])
    return bottom[keep]


@shared_doc
def word_intrusion_item(model, k: int, rng: np.random.Generator, *, n_top: int = 5,
                        other_top: int = 10, rankings: np.ndarray | None = None) -> dict:
    """One word-intrusion item for topic ``k``: its ``n_top`` words plus an intruder, shuffled.

    Chang et al. (2009) §3.  The intruder is drawn uniformly from :func:`intruder_candidates`
    (those not already among the topic's words).

    Parameters
    ----------
    %(item_model)s %(item_topic)s
    rng : numpy.random.Generator
        Draws the intruder and shuffles the options.
    n_top : int
        Top words of the topic shown.
    other_top : int
        How many of another topic's most probable words may be the intruder.
    rankings : numpy.ndarray, optional
        Precomputed :func:`topic_rankings` (computed with seed 0 when not given).

    Returns
    -------
    dict
        The item: ``id`` (``wi-K``), ``task``, ``topic``, ``options``, ``answer`` (the intruder),
        ``top_words`` and ``check`` (False).

    Raises
    ------
    StudyError
        When the topic has fewer than ``n_top + 1`` distinct candidate words or no admissible
        intruder (caught by :func:`word_intrusion_items`, which records an exclusion).
    """
    rankings = topic_rankings(model) if rankings is None else rankings
    vocab = model.vocabulary_
    n_words = rankings.shape[1]
    if n_words < n_top + 1:
        raise StudyError(f"topic {k}: the vocabulary has {n_words} words, fewer than the "
                         f"{n_top + 1} distinct words a word-intrusion item needs")
    top = [vocab[i] for i in rankings[k, :n_top]]
    cand = intruder_candidates(rankings, k, n_top, other_top)
    cand = [c for c in cand if vocab[c] not in top]
    if len(set(top)) < n_top or not cand:
        raise StudyError(f"topic {k}: fewer than {n_top + 1} distinct candidate words (no word in the "
                         f"bottom half of the topic is among another topic's top {other_top})")
    intruder = vocab[int(rng.choice(cand))]
    options = top + [intruder]
    rng.shuffle(options)
    return {"id": f"wi-{k}", "task": WORD_INTRUSION, "topic": int(k), "options": options,
            "answer": intruder, "top_words": top, "check": False}


@shared_doc
def word_intrusion_items(model, topics: Sequence[int] | None, rng: np.random.Generator, *,
                         n_top: int = 5, other_top: int = 10,
                         rankings: np.ndarray | None = None) -> tuple[list[dict], list[dict]]:
    """Word-intrusion items for ``topics`` (all by default) and the topics excluded, with reasons.

    Parameters
    ----------
    %(item_model)s
    topics : sequence of int or None
        The topics (None: every topic).
    rng, n_top, other_top, rankings
        As in :func:`word_intrusion_item`, for each topic (``rankings`` computed once when not given).

    Returns
    -------
    items : list of dict
        One item per usable topic (:func:`word_intrusion_item`).
    excluded : list of dict
        ``task``, ``topic`` and ``reason`` of each topic that could not yield an item.
    """
    rankings = topic_rankings(model) if rankings is None else rankings
    topics = range(rankings.shape[0]) if topics is None else topics
    items, excluded = [], []
    for k in topics:
        try:
            items.append(word_intrusion_item(model, int(k), rng, n_top=n_top, other_top=other_top,
                                             rankings=rankings))
        except StudyError as exc:
            excluded.append({"task": WORD_INTRUSION, "topic": int(k), "reason": str(exc)})
    return items, excluded


def opening(text: str, n_chars: int = 400) -> str:
    """The first ``n_chars`` characters of ``text``, cut at a word boundary, with an ellipsis.

    Whitespace runs are first collapsed to single spaces; a text no longer than ``n_chars`` is
    returned whole, without an ellipsis.

    Parameters
    ----------
    text : str
        The document's text.
    n_chars : int
        Most characters kept.

    Returns
    -------
    str
        The opening.
    """
    text = " ".join(text.split())
    if len(text) <= n_chars:
        return text
    cut = text.rfind(" ", 0, n_chars)
    return text[: cut if cut > 0 else n_chars] + " …"


def topic_intrusion_item(doc_topic_row: np.ndarray, d: int, top_words: Sequence[Sequence[str]],
                         rng: np.random.Generator, *, doc_id: str, title: str, text: str,
                         n_shown: int = 3, opening_chars: int = 400) -> dict:
    """One topic-intrusion item for a document (Chang et al. 2009 §3).

    Shows the document's ``n_shown`` most probable topics and one intruder
    drawn uniformly from its low-probability topics: the bottom half of the
    document's topics by ``theta`` (rank ``>= ceil(K / 2)``), never one of
    the shown topics.  The item keeps ``theta`` of the four topics shown so
    that the topic log odds can be scored from the study file alone.

    Parameters
    ----------
    doc_topic_row : numpy.ndarray
        The document's topic proportions ``theta`` (length ``K``), positive and finite.
    d : int
        The document's row number (``doc_index``; the item id is ``ti-D``).
    top_words : sequence of sequence of str
        Each topic's top words, shown with the topics.
    rng : numpy.random.Generator
        Draws the intruder and shuffles the options.
    doc_id : str
        The document's id.
    title : str
        The document's title.
    text : str
        The document's text; its opening is shown (:func:`opening`).
    n_shown : int
        The document's most probable topics shown.
    opening_chars : int
        Characters of the text shown.

    Returns
    -------
    dict
        The item: ``id``, ``task``, ``document``, ``doc_index``, ``title``, ``text``,
        ``options`` (topic ids as strings), ``option_words``, ``theta``, ``answer`` and ``check``.

    Raises
    ------
    StudyError
        When ``theta`` is not positive and finite, or ``K`` is too small to leave a low-probability
        topic outside the shown ones.
    """
    theta = np.asarray(doc_topic_row, dtype=np.float64)
    n_topics = theta.size
    if not np.all(np.isfinite(theta)) or np.any(theta <= 0):
        raise StudyError(f"document {doc_id}: topic proportions must be positive and finite "
                         "(the log odds need log theta); smooth them or infer them with a prior")
    order = np.lexsort((np.arange(n_topics), -theta))
    shown = [int(j) for j in order[:n_shown]]
    low = [int(j) for j in order[(n_topics + 1) // 2:] if j not in shown]
    if not low:
        raise StudyError(f"topic intrusion with {n_shown} shown topics needs a low-probability topic "
                         f"outside them; K={n_topics} is too small (use K >= {n_shown + 1})")
    intruder = int(rng.choice(low))
    options = shown + [intruder]
    rng.shuffle(options)
    return {"id": f"ti-{d}", "task": TOPIC_INTRUSION, "document": str(doc_id), "doc_index": int(d),
            "title": title, "text": opening(text, opening_chars),
            "options": [str(j) for j in options],
            "option_words": {str(j): list(top_words[j]) for j in options},
            "theta": {str(j): float(theta[j]) for j in options},
            "answer": str(intruder), "check": False}


@shared_doc
def rating_item(k: int, words: Sequence[str]) -> dict:
    """A coherence-rating item: a topic's top words judged 2 / 1 / 0 (Lau et al. 2014).

    Parameters
    ----------
    %(item_topic)s
    words : sequence of str
        Its top words.

    Returns
    -------
    dict
        The item (``id`` ``r-K``, options :data:`RATING_SCALE`).
    """
    return {"id": f"r-{k}", "task": RATING, "topic": int(k), "words": list(words),
            "options": list(RATING_SCALE), "check": False}


def multilingual_words(topic_words, n: int) -> dict[str, list[list[str]]]:
    """Per-language top-``n`` word lists of a multilingual model.

    Accepts a mapping ``language -> list of word lists`` (one per topic); a
    model with ``languages_`` and ``top_words(lang, n)`` (such as
    :class:`~tealeaves.models.polylingual.PolylingualTopicModel`); or an
    object whose ``top_words(n)`` returns such a mapping.

    Parameters
    ----------
    topic_words : mapping or object
        The word lists, or a model that gives them.
    n : int
        Words kept per topic.

    Returns
    -------
    dict of str to list of list of str
        Each language's word lists, one per topic, cut to ``n`` words.

    Raises
    ------
    StudyError
        When ``topic_words`` gives no word lists, fewer than two languages, or languages with
        different numbers of topics.
    """
    if not isinstance(topic_words, Mapping):
        if hasattr(topic_words, "languages_") and hasattr(topic_words, "top_words"):
            topic_words = {lang: topic_words.top_words(lang, n) for lang in topic_words.languages_}
        elif hasattr(topic_words, "top_words"):
            topic_words = topic_words.top_words(n)
        else:
            raise StudyError("a multilingual rating needs a mapping language -> topic word lists, "
                             "or a model whose top_words gives them")
    if len(topic_words) < 2:
        raise StudyError(f"a multilingual rating needs at least two languages, got {list(topic_words)}")
    sizes = {lang: len(ws) for lang, ws in topic_words.items()}
    if len(set(sizes.values())) != 1:
        raise StudyError(f"every language must have the same number of topics, got {sizes}")
    return {str(lang): [list(w)[:n] for w in ws] for lang, ws in topic_words.items()}


@shared_doc
def multilingual_rating_item(k: int, words: Mapping[str, Sequence[str]], languages: Sequence[str]) -> dict:
    """A Hao et al. (2018) item: topic ``k``'s top words in two languages side by side.

    Parameters
    ----------
    %(item_topic)s
    words : mapping of str to sequence of str
        The topic's top words per language.
    languages : sequence of str
        The two languages shown, in order.

    Returns
    -------
    dict
        The item (``id`` ``ml-K``, options :data:`RATING_SCALE`).
    """
    return {"id": f"ml-{k}", "task": MULTILINGUAL_RATING, "topic": int(k), "languages": list(languages),
            "words": {lang: list(words[lang]) for lang in languages},
            "options": list(RATING_SCALE), "check": False}


# -- attention checks -------------------------------------------------------------------------------
def rating_check_item(i: int, word_lists: Sequence[Sequence[str]], n_words: int,
                      rng: np.random.Generator) -> dict:
    """An obviously incoherent topic: the top word of ``n_words`` different topics.

    Its expected rating is 0 (incoherent).

    Parameters
    ----------
    i : int
        The check item's number (its id is ``check-r-I``).
    word_lists : sequence of sequence of str
        Each topic's top words.
    n_words : int
        Topics drawn (without replacement), one top word each; repeated words are kept once.
    rng : numpy.random.Generator
        Draws the topics.

    Returns
    -------
    dict
        The check item (``check`` True, ``expected`` ``["0"]``).

    Raises
    ------
    StudyError
        When there are fewer than ``n_words`` topics.
    """
    if len(word_lists) < n_words:
        raise StudyError(f"an incoherent check topic needs {n_words} topics to draw from, got "
                         f"{len(word_lists)}; ask for fewer words or no check items")
    picks = rng.choice(len(word_lists), size=n_words, replace=False)
    words = list(dict.fromkeys(word_lists[j][0] for j in picks))
    return {"id": f"check-r-{i}", "task": RATING, "topic": None, "words": words,
            "options": list(RATING_SCALE), "check": True, "expected": ["0"]}


@shared_doc
def word_intrusion_check_item(i: int, model, rng: np.random.Generator, n_top: int = 5,
                              rankings: np.ndarray | None = None, other_top: int = 10) -> dict:
    """An obvious intruder: a topic's top words plus a word of the least similar topic.

    The host topic is drawn at random; the intruder is, among the
    ``other_top`` words of the topic whose word distribution has the smallest
    cosine similarity with the host, the one least probable in the host.

    Parameters
    ----------
    i : int
        The check item's number (its id is ``check-wi-I``).
    %(item_model)s
    rng : numpy.random.Generator
        Draws the host topic and shuffles the options.
    n_top : int
        Top words of the host shown.
    rankings : numpy.ndarray, optional
        Precomputed :func:`topic_rankings`.
    other_top : int
        Top words of the least similar topic from which the intruder is chosen.

    Returns
    -------
    dict
        The check item (``host_topic``, ``source_topic``, ``answer`` and ``expected`` the intruder).

    Raises
    ------
    StudyError
        With fewer than two topics, or when no word of the other topic lies outside the host's top words.
    """
    rankings = topic_rankings(model) if rankings is None else rankings
    w = np.asarray(model.topic_word_weights_, dtype=np.float64)
    if w.shape[0] < 2:
        raise StudyError("a word-intrusion check item needs at least two topics")
    k = int(rng.integers(w.shape[0]))
    # cosines over the columns in one canonical order (the host's ranking), so that permuting the
    # vocabulary cannot change a sum's rounding and with it the least similar topic
    canon = w[:, rankings[k]]
    norm = canon / np.maximum(np.linalg.norm(canon, axis=1, keepdims=True), 1e-300)
    sim = norm @ norm[k]
    sim[k] = np.inf
    other = int(np.argmin(sim))
    vocab = model.vocabulary_
    top = [vocab[j] for j in rankings[k, :n_top]]
    pool = [int(j) for j in rankings[other, :other_top] if vocab[j] not in top]
    if not pool:
        raise StudyError("no word outside the host topic's top words to use as an obvious intruder")
    rank_in_host = np.empty(w.shape[1], dtype=np.int64)
    rank_in_host[rankings[k]] = np.arange(w.shape[1])
    intruder = vocab[max(pool, key=lambda j: rank_in_host[j])]  # least probable in the host, ties by key
    options = top + [intruder]
    rng.shuffle(options)
    return {"id": f"check-wi-{i}", "task": WORD_INTRUSION, "topic": None, "host_topic": k,
            "source_topic": other, "options": options, "answer": intruder, "expected": [intruder],
            "check": True}


def multilingual_check_item(i: int, words: Mapping[str, Sequence[Sequence[str]]], languages: Sequence[str],
                            rng: np.random.Generator) -> dict:
    """A mismatched pair: topic ``a``'s words in one language next to topic ``b``'s in the other.

    The two sides are about different subjects, so the expected rating is 0
    (Hao et al. 2018 §5.1 insert such easily identified incoherent topics).

    Parameters
    ----------
    i : int
        The check item's number (its id is ``check-ml-I``).
    words : mapping of str to sequence of sequence of str
        Each language's word lists, one per topic.
    languages : sequence of str
        The two languages shown.
    rng : numpy.random.Generator
        Draws the two distinct topics.

    Returns
    -------
    dict
        The check item (``expected`` ``["0"]``).

    Raises
    ------
    StudyError
        With fewer than two topics.
    """
    n_topics = len(words[languages[0]])
    if n_topics < 2:
        raise StudyError("a multilingual check item needs at least two topics")
    a, b = (int(x) for x in rng.choice(n_topics, size=2, replace=False))
    return {"id": f"check-ml-{i}", "task": MULTILINGUAL_RATING, "topic": None,
            "languages": list(languages),
            "words": {languages[0]: list(words[languages[0]][a]), languages[1]: list(words[languages[1]][b])},
            "options": list(RATING_SCALE), "check": True, "expected": ["0"]}


def require_items(items: Sequence[dict]) -> None:
    """Raise :class:`EmptyInputError` when a study has no items.

    Parameters
    ----------
    items : sequence of dict
        The study's items.

    Raises
    ------
    EmptyInputError
        When ``items`` is empty.
    """
    if not items:
        raise EmptyInputError("the study has no items: ask for at least one task with at least one "
                              "topic or document (see the exclusions for topics that could not be used)")
