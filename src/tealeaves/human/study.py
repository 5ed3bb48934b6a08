"""A human-evaluation study: seeded construction, JSON persistence, the public view of items.

A study file is JSON::

    {"format": "tealeaves-study", "format_version": 1, "name": ..., "seed": ...,
     "settings": {...}, "annotators": [...] | null, "items": [...], "excluded": [...],
     "created_with": "tealeaves-<version>"}

``items`` are the dicts of :mod:`tealeaves.human.items`; ``excluded`` lists
the topics/documents that could not yield a valid item, with the reason.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves._io import StrictJSONError, loads_strict, read_text, write_text
from tealeaves._params import Param, declare, deprecated_alias, naming, renamed_parameters, warn_renamed
from tealeaves._version import __version__
from tealeaves.errors import ParameterError
from tealeaves.human import items as it
from tealeaves.human.inputs import is_path, load_multilingual, resolve_documents
from tealeaves.human.items import StudyError
from tealeaves.human.schema import FORMAT, FORMAT_VERSION, StudyFormatError, validate_study
from tealeaves.validation import check_int, check_unique

#: The documented tie-break rule, recorded in every study's settings.
TIE_BREAK = "probability, then sha256(seed, word)"

#: Keys the annotator must not see (answers, check flags, model internals).
HIDDEN_KEYS = frozenset({"answer", "expected", "check", "theta", "top_words", "host_topic", "source_topic",
                         "doc_index", "topic"})

#: Word intrusion (Chang et al. 2009 §3) shows a topic's ``n_top`` words and one intruder: with a single
#: topic word there is no "odd one out" (either of two words could be the intruder), so at least two; and
#: more than 50 words are no longer one item an annotator can take in at a glance.
N_TOP = Param("n_top", "int", min_value=2, max_value=50,
              help="word intrusion: the topic's words shown with the intruder, 2-50")
#: A rating judges whether the words share one subject: one word cannot, and 100 is a page.
RATING_WORDS = Param("rating_words", "int", min_value=2, max_value=100,
                     help="words C shown for a rating, 2-100")
N_CHECKS = Param("n_checks", "int", min_value=0, max_value=100, help="attention-check items per task, 0-100",
                 deprecated_flags=("--checks",))
N_DOCUMENTS = Param("n_documents", "int", min_value=1,
                    help="topic intrusion: how many documents to draw at random")
OTHER_TOP = Param("other_top", "int", min_value=1,
                  help="an intruder is among this many words of another topic")
TOPIC_INTRUSION_WORDS = Param("topic_intrusion_words", "int", min_value=1,
                              help="words showing each topic of a topic-intrusion item")
SEED = Param("seed", "seed", help="seed of the study's construction")
NAME = Param("name", "str", help="the study's name")
DOC_TOPIC = Param("doc_topic", "path", help="topic intrusion: D x K proportions (.npy)")
DOCUMENTS = Param("documents", "path",
                  help="topic intrusion: JSON lines with 'title' and 'text' (and 'id'), one per row")
MULTILINGUAL = Param("multilingual", "path",
                     help="multilingual rating: JSON {language: [[words of topic 0], ...]}")
#: The declarations of :func:`build_study`'s parameters, by name.
PARAMS = declare(N_TOP, RATING_WORDS, N_CHECKS, N_DOCUMENTS, OTHER_TOP, TOPIC_INTRUSION_WORDS, SEED, NAME,
                 DOC_TOPIC, DOCUMENTS, MULTILINGUAL)


@dataclass
class Study:
    """The items of a study with the settings and seed that produced them.

    Built by :func:`build_study` or read by :meth:`Study.load`; ``by_id`` maps each item id to
    its item.

    Parameters
    ----------
    items : list of dict
        The items (:mod:`tealeaves.human.items`), with unique ids.
    name : str
        The study's name.
    seed : int, optional
        The seed of the construction (None for a study described from outside).
    settings : dict
        The settings of the construction (tasks, ``n_checks``, ``tie_break``, ...).
    excluded : list of dict
        The topics/documents that could not yield a valid item, with the reason.
    annotators : list of str, optional
        The annotators' names, if the study lists them.

    Raises
    ------
    StudyError
        When two items have the same id.
    """

    items: list[dict]
    name: str = "study"
    seed: int | None = None
    settings: dict = field(default_factory=dict)
    excluded: list[dict] = field(default_factory=list)
    annotators: list[str] | None = None

    def __post_init__(self) -> None:
        ids = [item["id"] for item in self.items]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise StudyError(f"the study has duplicate item ids {dup[:5]}; item ids must be unique")
        self.by_id = {item["id"]: item for item in self.items}

    def __len__(self) -> int:
        return len(self.items)

    def to_dict(self) -> dict:
        """The study as the JSON object of a study file (see the module docstring).

        Returns
        -------
        dict
            ``format``, ``format_version``, ``name``, ``seed``, ``settings``, ``annotators``,
            ``items``, ``excluded`` and ``created_with``.
        """
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "name": self.name, "seed": self.seed,
                "settings": self.settings, "annotators": self.annotators, "items": self.items,
                "excluded": self.excluded, "created_with": f"tealeaves-{__version__}"}

    @property
    def fingerprint(self) -> str:
        """First 16 hex digits of the SHA-256 of the items (canonical JSON)."""
        blob = json.dumps(self.items, sort_keys=True, ensure_ascii=False).encode()
        return hashlib.sha256(blob).hexdigest()[:16]

    def save(self, path: str | Path) -> Path:
        """Write the study as JSON (UTF-8), atomically.

        Parameters
        ----------
        path : str or os.PathLike
            The study file.

        Returns
        -------
        pathlib.Path
            The file written.
        """
        return write_text(path, json.dumps(self.to_dict(), indent=1, ensure_ascii=False), what="study file")

    @classmethod
    def load(cls, path: str | Path) -> Study:
        """Read a study file; :class:`~tealeaves.human.schema.StudyFormatError` if it breaks the schema.

        A file without items is an :class:`~tealeaves.errors.EmptyInputError`.

        Parameters
        ----------
        path : str or os.PathLike
            The study file (JSON).

        Returns
        -------
        Study
            The study it holds.

        Raises
        ------
        StudyFormatError
            When the file is not valid JSON or breaks the schema
            (:func:`~tealeaves.human.schema.validate_study`).
        EmptyInputError
            When the study has no items.
        """
        text = read_text(path, what="study file", utf8_only=True)
        try:
            raw = loads_strict(text)
        except StrictJSONError as exc:
            raise StudyFormatError(f"cannot read study file {path}: not valid JSON ({exc.value} is not a "
                                   "valid JSON number)",
                                   fix="give a study file written by `tealeaves human build-study`") from None
        except (ValueError, RecursionError) as exc:
            raise StudyFormatError(f"cannot read study file {path}: not valid JSON ({exc})",
                                   fix="give a study file written by `tealeaves human build-study`") from None
        if isinstance(raw, dict) and raw.get("format") == FORMAT and raw.get("items") == []:
            it.require_items([])
        validate_study(raw, str(path))
        return cls(items=list(raw["items"]), name=raw.get("name", "study"), seed=raw.get("seed"),
                   settings=raw.get("settings") or {}, excluded=raw.get("excluded") or [],
                   annotators=raw.get("annotators"))

    def public_item(self, item_id: str) -> dict:
        """The item as shown to an annotator: no answer, no check flag, no model internals.

        Parameters
        ----------
        item_id : str
            The item's id.

        Returns
        -------
        dict
            The item without the keys of :data:`HIDDEN_KEYS`.
        """
        return {k: v for k, v in self.by_id[item_id].items() if k not in HIDDEN_KEYS}

    @shared_doc
    def order_for(self, annotator: str) -> list[str]:
        """The item order shown to ``annotator``: a shuffle seeded by the study seed and the name.

        Parameters: %(annotator)s

        Returns
        -------
        list of str
            Every item id, in the annotator's order (the same on every call).
        """
        digest = hashlib.sha256(f"{self.seed}|{annotator}".encode()).digest()
        rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
        ids = [item["id"] for item in self.items]
        return [ids[i] for i in rng.permutation(len(ids))]


def _is_row_indices(value: object) -> bool:
    """Whether ``value`` is a non-empty sequence of whole numbers: ``documents`` in its old meaning."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)) or len(value) == 0:
        return False
    return all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value)


def _old_documents(func: Callable) -> Callable:
    """Accept ``documents=`` as row indices (its old meaning, now ``document_ids``), warning once.

    ``documents`` now holds the documents' texts (a JSON Lines path or a list of records); a
    non-empty sequence of whole numbers can only be the old row indices (``docs/naming.md``).
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _is_row_indices(kwargs.get("documents")):
            if kwargs.get("document_ids") is not None:
                raise ParameterError("build_study() got both 'documents' (row indices) and 'document_ids'",
                                     fix="give only 'document_ids' ('documents' as indices is its old name)")
            warn_renamed("documents", "document_ids", "build_study()")
            kwargs["document_ids"] = kwargs.pop("documents")
        return func(*args, **kwargs)

    wrapper.__renamed_parameters__ = {"documents": "document_ids"}  # read by the naming test
    return wrapper


@_old_documents
def build_study(
    model=None,
    *,
    tasks: Sequence[str] = (it.WORD_INTRUSION, it.RATING),
    seed: int = 0,
    topics: Sequence[int] | None = None,
    n_top: int = 5,
    other_top: int = 10,
    rating_words: int = 10,
    confidence: bool = False,
    doc_topic=None,
    documents=None,
    document_ids: Sequence[int] | None = None,
    n_documents: int = 20,
    titles: Sequence[str] | None = None,
    texts: Sequence[str] | None = None,
    doc_ids: Sequence[str] | None = None,
    topic_intrusion_words: int = 8,
    multilingual=None,
    languages: Sequence[str] | None = None,
    n_checks: int = 2,
    annotators: Sequence[str] | None = None,
    name: str = "study",
) -> Study:
    """Build a seeded, reproducible study.

    Word intrusion and topic intrusion follow Chang et al. (2009) §3, ratings Lau et al.
    (2014), multilingual ratings Hao et al. (2018) §5.1.  Each task draws from its own child of
    ``seed``, so adding a task does not change the items of the others.  See ``docs/human.md`` for
    how each task's items are built.

    Parameters
    ----------
    model : topic model, optional
        Any tealeaves model (``topic_word_weights_``, ``vocabulary_``); needed by word
        intrusion, rating and topic intrusion.
    tasks : sequence of str
        Among ``word_intrusion``, ``topic_intrusion``, ``rating`` and ``multilingual_rating``.
    seed : int
        Seed of the construction, in ``[0, 2**32 - 1]``.
    topics : sequence of int, optional
        The topics to build items for (default: all).
    n_top : int
        Word intrusion: the topic's words shown with the intruder, 2 to 50 (:data:`N_TOP`).
    other_top : int
        An intruder is among this many most probable words of another topic.
    rating_words : int
        Rating: the words shown, 2 to 100.
    confidence : bool
        Also ask annotators for their confidence in each rating.
    doc_topic : array-like, str or os.PathLike, optional
        Topic intrusion: ``D x K`` proportions (e.g. ``model.transform(corpus)``), or their
        ``.npy`` file (:func:`~tealeaves.human.inputs.load_doc_topic`).
    documents : str, os.PathLike or sequence of mapping, optional
        Topic intrusion: the documents, one per row of ``doc_topic``, as a JSON Lines file or
        records with ``title``, ``text`` and optionally ``id``
        (:func:`~tealeaves.human.inputs.load_documents`); instead of ``titles``, ``texts`` and
        ``doc_ids``.  A non-empty sequence of whole numbers is read as ``document_ids`` (its
        old meaning), with a ``FutureWarning``.
    document_ids : sequence of int, optional
        Topic intrusion: the rows of ``doc_topic`` to build items for (default: ``n_documents``
        rows drawn at random).
    n_documents : int
        Topic intrusion: how many rows to draw when ``document_ids`` is not given.
    titles, texts : sequence of str, optional
        Topic intrusion: each document's title and text (when ``documents`` is not given).
    doc_ids : sequence of str, optional
        Topic intrusion: each document's id (default: its row number).
    topic_intrusion_words : int
        Topic intrusion: the words showing each topic.
    multilingual : mapping, model, str or os.PathLike, optional
        Multilingual rating: ``language -> topic word lists``, a model whose ``top_words(n)``
        gives them (:func:`~tealeaves.human.items.multilingual_words`), or a JSON file of the
        mapping (:func:`~tealeaves.human.inputs.load_multilingual`).
    languages : sequence of str, optional
        Multilingual rating: the two languages shown side by side (default: the first two).
    n_checks : int
        Attention-check items per task, 0 to 100.
    annotators : sequence of str, optional
        The annotators' names, recorded in the study.
    name : str
        The study's name.

    Returns
    -------
    Study
        The items, settings, seed and exclusions.

    Raises
    ------
    StudyError
        For unknown or no tasks, a task without what it needs (a model, ``doc_topic`` and
        documents, per-language words), or inputs whose shapes disagree.
    ParameterError
        When a setting is out of range or of the wrong type, or ``documents`` (as row indices)
        and ``document_ids`` are both given.
    EmptyInputError
        When no item could be built.
    """
    unknown = [t for t in tasks if t not in it.TASKS]
    if unknown or not tasks:
        raise StudyError(f"unknown or no tasks {unknown or list(tasks)}; choose from {it.TASKS}")
    seed = SEED.check(seed)
    if not isinstance(name, str) or not name.strip():
        raise naming(ParameterError(f"the study name must be a non-empty string, got {name!r}",
                                    fix="e.g. `name='pilot'`"), "name")
    tasks = check_unique(tasks, "tasks")
    n_top, other_top, rating_words, n_checks, n_documents, topic_intrusion_words = (
        PARAMS[k].check(v) for k, v in (
            ("n_top", n_top), ("other_top", other_top), ("rating_words", rating_words),
            ("n_checks", n_checks), ("n_documents", n_documents),
            ("topic_intrusion_words", topic_intrusion_words)))
    annotators = check_annotators(annotators)
    doc_topic, titles, texts, doc_ids = resolve_documents(doc_topic, documents, titles, texts, doc_ids)
    if is_path(multilingual):
        multilingual = load_multilingual(multilingual)
    rngs = dict(zip(it.TASKS, (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(4))))
    items: list[dict] = []
    excluded: list[dict] = []
    settings: dict = {"tasks": list(tasks), "n_checks": n_checks, "tie_break": TIE_BREAK}
    if (it.WORD_INTRUSION in tasks or it.RATING in tasks) and model is None:
        raise StudyError("word intrusion and rating need a model")
    rankings = None if model is None else it.topic_rankings(model, seed)
    if rankings is not None:
        topics = check_topic_ids(topics, rankings.shape[0])
    if it.WORD_INTRUSION in tasks:
        new, exc = _word_intrusion(model, topics, rngs[it.WORD_INTRUSION], n_top, other_top, n_checks,
                                   rankings)
        items += new
        excluded += exc
        settings.update(n_top=n_top, other_top=other_top)
    if it.RATING in tasks:
        items += _ratings(model, topics, rngs[it.RATING], rating_words, n_checks, rankings)
        settings.update(rating_words=rating_words, confidence=confidence)
    if it.TOPIC_INTRUSION in tasks:
        new, exc = _topic_intrusion(model, doc_topic, document_ids, n_documents, titles, texts, doc_ids,
                                    topic_intrusion_words, rngs[it.TOPIC_INTRUSION], rankings)
        items += new
        excluded += exc
        settings.update(topic_intrusion_words=topic_intrusion_words)
    if it.MULTILINGUAL_RATING in tasks:
        items += _multilingual(multilingual, languages, topics, rating_words, n_checks,
                               rngs[it.MULTILINGUAL_RATING])
        settings.update(rating_words=rating_words, confidence=confidence)
    it.require_items(items)
    return Study(items=items, name=name, seed=seed, settings=settings, excluded=excluded,
                 annotators=annotators)


@renamed_parameters({"n_topics": "n_components"})
def check_topic_ids(topics: Sequence[int] | None, n_components: int) -> list[int] | None:
    """Check topic ids against the number of topics.

    Parameters
    ----------
    topics : sequence of int or None
        Topic ids (numbers written as text accepted); None for all topics.
    n_components : int
        The number of topics.

    Returns
    -------
    list of int or None
        The distinct ids, each in ``[0, n_components - 1]`` (None: all topics).

    Raises
    ------
    ParameterError
        When an id is not a whole number in range, ids repeat, or ``topics`` is empty.
    """
    if topics is None:
        return None
    out = check_unique([check_int(t, "topic id", min_value=0, max_value=n_components - 1, allow_str=True)
                        for t in topics], "topics")
    if not out:
        raise naming(ParameterError("topics is empty",
                                    fix="give at least one topic id, or omit it for all topics"), "topics")
    return out


check_topics = deprecated_alias(check_topic_ids, "check_topics")


def check_annotators(annotators: Sequence[str] | None) -> list[str] | None:
    """Check annotator names: distinct, non-empty strings.

    Parameters
    ----------
    annotators : sequence of str or None
        The names (None or empty: no list).

    Returns
    -------
    list of str or None
        The names, stripped of surrounding blanks.

    Raises
    ------
    ParameterError
        When ``annotators`` is a string, a name is not a non-empty string, or names repeat.
    """
    if not annotators:
        return None
    if isinstance(annotators, str) or any(not isinstance(a, str) or not a.strip() for a in annotators):
        raise naming(ParameterError(f"annotators must be a list of non-empty names, got {annotators!r}",
                                    fix="e.g. `annotators='alice,bob'`"), "annotators")
    return check_unique([a.strip() for a in annotators], "annotators")


def _word_intrusion(model, topics, rng, n_top, other_top, n_checks, rankings):
    items, excluded = it.word_intrusion_items(model, topics, rng, n_top=n_top, other_top=other_top,
                                              rankings=rankings)
    items += [it.word_intrusion_check_item(i, model, rng, n_top, rankings, other_top)
              for i in range(n_checks)]
    return items, excluded


def _top_words(model, rankings, n: int) -> list[list[str]]:
    """Each topic's ``n`` first words in the study's ranking (:func:`items.topic_rankings`)."""
    vocab = model.vocabulary_
    return [[vocab[j] for j in row[:n]] for row in rankings]


def _ratings(model, topics, rng, n_words, n_checks, rankings):
    words = _top_words(model, rankings, n_words)
    topics = range(len(words)) if topics is None else topics
    items = [it.rating_item(int(k), words[k]) for k in topics]
    return items + [it.rating_check_item(i, words, min(n_words, len(words)), rng) for i in range(n_checks)]


def _proportions(doc_topic) -> np.ndarray:
    """``doc_topic`` as a float array, or StudyError unless it is a non-empty D x K array of finite reals."""
    try:
        theta = np.asarray(doc_topic)
    except ValueError:  # ragged rows
        theta = np.asarray(None)
    real = np.issubdtype(theta.dtype, np.integer) or np.issubdtype(theta.dtype, np.floating)
    if theta.ndim != 2 or theta.shape[0] == 0 or not real or not np.all(np.isfinite(theta)):
        raise StudyError(f"doc_topic must be a D x K array of topic proportions (finite real numbers), got "
                         f"shape {theta.shape} of {theta.dtype}", fix="give model.transform(corpus)")
    return theta.astype(np.float64)


def _topic_intrusion(model, doc_topic, document_ids, n_documents, titles, texts, doc_ids, n_words, rng,
                     rankings):
    if doc_topic is None or titles is None or texts is None:
        raise naming(StudyError("topic intrusion needs `doc_topic` (D x K proportions) and `documents` (or "
                                "titles and texts)"), "doc_topic", "documents")
    theta = _proportions(doc_topic)
    n_docs = theta.shape[0]
    if len(titles) != n_docs or len(texts) != n_docs:
        raise StudyError(f"doc_topic has {n_docs} rows but {len(titles)} titles and {len(texts)} texts")
    if model is not None:
        words = _top_words(model, rankings, n_words)
        if len(words) != theta.shape[1]:
            raise StudyError(f"doc_topic has {theta.shape[1]} columns but the model {len(words)} topics")
    else:
        raise StudyError("topic intrusion needs the model to show each topic by its top words")
    if document_ids is None:
        document_ids = sorted(rng.choice(n_docs, size=min(n_documents, n_docs), replace=False).tolist())
    else:
        document_ids = check_unique([check_int(d, "document index", min_value=0, max_value=n_docs - 1)
                                     for d in document_ids], "document_ids")
    ids = doc_ids if doc_ids is not None else [str(d) for d in range(n_docs)]
    items, excluded = [], []
    for d in document_ids:
        try:
            items.append(it.topic_intrusion_item(theta[d], int(d), words, rng, doc_id=ids[d], title=titles[d],
                                                 text=texts[d]))
        except StudyError as exc:
            excluded.append({"task": it.TOPIC_INTRUSION, "document": str(ids[d]), "reason": str(exc)})
    return items, excluded


def _multilingual(multilingual, languages, topics, n_words, n_checks, rng):
    if multilingual is None:
        raise StudyError("a multilingual rating needs per-language topic words (multilingual=...)")
    words = it.multilingual_words(multilingual, n_words)
    languages = list(languages or list(words)[:2])
    if len(languages) != 2 or any(lang not in words for lang in languages):
        raise StudyError(f"choose two of the languages {list(words)} to show side by side, got {languages}")
    n_topics = len(words[languages[0]])
    topics = range(n_topics) if topics is None else check_topic_ids(topics, n_topics)
    items = [it.multilingual_rating_item(int(k), {lang: words[lang][k] for lang in languages}, languages)
             for k in topics]
    return items + [it.multilingual_check_item(i, words, languages, rng) for i in range(n_checks)]
