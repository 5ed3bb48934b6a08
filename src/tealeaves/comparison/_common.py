"""Shared input handling of the comparison measures: models, word lists, thresholds, results."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from tealeaves._params import Param
from tealeaves.errors import EmptyInputError, InvalidModelError, ParameterError
from tealeaves.models._fit import describe
from tealeaves.models.base import check_topic_word
from tealeaves.signature import Signature
from tealeaves.validation import check_float


@dataclass
class Score:
    """A model-level score with its per-topic values (if any) and signature.

    Parameters
    ----------
    measure : str
        The measure's name (e.g. ``"topic-diversity"``).
    value : float
        The number reported for the model.
    signature : Signature
        What was computed and how.
    per_topic : pandas.DataFrame or None, default None
        One row per topic, or ``None``.
    details : dict, default {}
        Counts that explain the value (e.g. the number of pairs).
    """

    measure: str
    value: float
    signature: Signature
    per_topic: pd.DataFrame | None = field(default=None, repr=False)
    details: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """The score as a JSON-ready dictionary.

        Returns
        -------
        dict
            ``measure``, ``value``, ``signature`` (a string), the ``details`` and, with
            per-topic values, ``topics`` (:func:`frame_records`).
        """
        out = {"measure": self.measure, "value": self.value, "signature": str(self.signature),
               **self.details}
        if self.per_topic is not None:
            out["topics"] = frame_records(self.per_topic)
        return out


def frame_records(frame: pd.DataFrame) -> list[dict]:
    """``frame`` as JSON-ready records (numpy scalars become Python numbers, NaN becomes ``None``).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table to convert.

    Returns
    -------
    list of dict
        One dictionary per row, column name to value.
    """
    records = frame.astype(object).where(frame.notna(), None).to_dict(orient="records")
    return [{k: (v.item() if isinstance(v, np.generic) else v) for k, v in r.items()} for r in records]


def model_name(model: object) -> str:
    """The signature-safe description of a model, or ``"topics"`` for plain word lists.

    Parameters
    ----------
    model : object
        A fitted model or lists of ranked words.

    Returns
    -------
    str
        The model's description (``describe``), or ``"topics"``.
    """
    if hasattr(model, "topic_word_weights_") or hasattr(model, "description"):
        return describe(model)
    return "topics"


def topic_weights(model: object, name: str = "model") -> np.ndarray:
    """A model's ``K x V`` ranking weights (``topic_word_`` if it has probabilities), validated.

    Probabilities are checked with :func:`~tealeaves.models.base.check_topic_word`;
    weights without probabilities (LSI) must be finite.  Empty models are refused.

    Parameters
    ----------
    model : object
        A fitted tealeaves model (``topic_word_`` or ``topic_word_weights_``).
    name : str, default "model"
        What ``model`` is, for error messages.

    Returns
    -------
    numpy.ndarray
        The ``K x V`` float64 weights.

    Raises
    ------
    InvalidModelError
        If ``model`` has neither attribute, no topics, or non-finite or invalid weights.
    """
    phi = getattr(model, "topic_word_", None)
    if phi is not None:
        return check_topic_word(phi, name=f"{name}.topic_word_")
    weights = getattr(model, "topic_word_weights_", None)
    if weights is None:
        raise InvalidModelError(f"{name} is not a topic model (no topic_word_ or topic_word_weights_)",
                                fix="pass a fitted tealeaves model")
    w = np.asarray(weights, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] == 0 or w.shape[1] == 0:
        raise InvalidModelError(f"{name} has no topics (weights of shape {w.shape})")
    bad = ~np.isfinite(w).all(axis=1)
    if bad.any():
        raise InvalidModelError(f"{name}.topic_word_weights_ has NaN or infinite values in topic "
                                f"{int(np.argmax(bad))}")
    return w


def topic_probabilities(model: object, name: str = "model") -> np.ndarray:
    """A model's validated ``K x V`` topic-word probabilities; models without them are refused.

    Parameters
    ----------
    model : object
        A fitted probabilistic tealeaves model.
    name : str, default "model"
        What ``model`` is, for error messages.

    Returns
    -------
    numpy.ndarray
        The ``K x V`` topic-word probabilities.

    Raises
    ------
    InvalidModelError
        If ``model`` has no topic-word probabilities (e.g. LSI) or they are invalid.
    """
    if getattr(model, "topic_word_", None) is None:
        raise InvalidModelError(f"{name} has no topic-word probabilities (e.g. LSI)",
                                fix="use a probabilistic model, or a measure on top words "
                                    "(metric='jaccard' or 'rbo')")
    return topic_weights(model, name)


def vocabulary_of(model: object, n_columns: int, name: str = "model") -> list[str]:
    """A model's vocabulary as a list of strings, checked against its number of columns.

    Parameters
    ----------
    model : object
        A fitted tealeaves model with ``vocabulary_``.
    n_columns : int
        The number of topic-word columns ``V``.
    name : str, default "model"
        What ``model`` is, for error messages.

    Returns
    -------
    list of str
        The ``V`` words in column order.

    Raises
    ------
    InvalidModelError
        If the model has no ``vocabulary_`` or its length is not ``n_columns``.
    """
    vocab = getattr(model, "vocabulary_", None)
    if vocab is None:
        raise InvalidModelError(f"{name} has no vocabulary_")
    words = [str(w) for w in vocab]
    if len(words) != n_columns:
        raise InvalidModelError(f"{name} has {n_columns} topic-word columns but {len(words)} vocabulary "
                                "words")
    return words


#: Top words per topic of the word-list measures (diversity, RBO, Jaccard matching; coherence needs 2).
N_TOP = Param("n_top", "int", min_value=1, help="top words per topic")
#: Whose definition a comparison measure follows: the paper's (default) or a peer's (``octis``,
#: reproducing OCTIS 1.14's numbers where its code departs from the paper; see docs/peers.md).
COMPAT = Param("compat", "choice", choices=("paper", "octis"),
               help="the paper's definition, or a peer's deviating one (octis)")
#: OCTIS's ``_KL`` adds this to both distributions without renormalising them.
OCTIS_EPSILON = 1e-5


def top_words(topics: object, n_top: int, name: str = "topics", require: bool = True) -> list[list[str]]:
    """Each topic's ``n_top`` words, best first, from a model or from lists of ranked words.

    A model's weights are validated (:func:`topic_weights`) and its own
    ``top_words(n)`` gives the ranking (the protocol of
    :mod:`tealeaves.models.base`: ties broken by word id).  Word lists must
    not repeat a word within a topic.

    Parameters
    ----------
    topics : object
        A fitted topic model or a sequence of ranked word lists.
    n_top : int
        The number of words per topic (>= 1).
    name : str, default "topics"
        What ``topics`` is, for error messages.
    require : bool, default True
        Every topic must have at least ``n_top`` words (measures over the top ``n``
        words are undefined for shorter topics); with ``False`` shorter lists are kept whole.

    Returns
    -------
    list of list of str
        ``K`` lists of at most ``n_top`` words.

    Raises
    ------
    ParameterError
        If ``n_top`` is invalid or too large, or a word is listed twice in a topic.
    InvalidModelError
        If ``topics`` is neither a model nor a list of word lists, or the model is invalid.
    EmptyInputError
        If ``topics`` holds no topics.
    """
    n_top = N_TOP.check(n_top)
    if hasattr(topics, "topic_word_weights_") or hasattr(topics, "topic_word_"):
        w = topic_weights(topics, name)
        vocabulary_of(topics, w.shape[1], name)
        if require and w.shape[1] < n_top:
            raise ParameterError(f"n_top={n_top} is larger than the vocabulary of {name} ({w.shape[1]} "
                                 "words)", fix="choose a smaller n_top")
        if not callable(getattr(topics, "top_words", None)):
            raise InvalidModelError(f"{name} has no top_words(n) method",
                                    fix="derive the model from tealeaves.models.base.TopicModel")
        return [[str(word) for word in t] for t in topics.top_words(n_top)]
    if isinstance(topics, (str, bytes)) or not isinstance(topics, Sequence):
        raise InvalidModelError(f"{name} must be a topic model or a list of word lists, "
                                f"got {type(topics).__name__}")
    out = [[str(w) for w in t] for t in topics]
    if not out:
        raise EmptyInputError(f"{name} holds no topics")
    for k, words in enumerate(out):
        if len(set(words)) != len(words):
            dup = next(w for i, w in enumerate(words) if w in words[:i])
            raise ParameterError(f"topic {k} of {name} lists {dup!r} more than once",
                                 fix="list each word once")
        if require and len(words) < n_top:
            raise ParameterError(f"topic {k} of {name} has {len(words)} words, fewer than n_top={n_top}",
                                 fix="give longer word lists or a smaller n_top")
    return [t[:n_top] for t in out]


def check_fraction(value: object, name: str, *, include_min: bool = True, include_max: bool = True) -> float:
    """A threshold in ``[0, 1]`` (ends included unless stated).

    Parameters
    ----------
    value : object
        The value to check.
    name : str
        The parameter's name, for the error message.
    include_min : bool, default True
        Whether 0 is allowed.
    include_max : bool, default True
        Whether 1 is allowed.

    Returns
    -------
    float
        ``value`` as a float.

    Raises
    ------
    ParameterError
        If ``value`` is not a number in the range.
    """
    return check_float(value, name, min_value=0.0, max_value=1.0, include_min=include_min,
                       include_max=include_max)


def require_topics(k: int, minimum: int, what: str) -> None:
    """Refuse a model with fewer than ``minimum`` topics for a measure over pairs of topics.

    Parameters
    ----------
    k : int
        The model's number of topics.
    minimum : int
        The least number of topics the measure needs.
    what : str
        The measure's name, for the error message.

    Raises
    ------
    ParameterError
        If ``k < minimum``.
    """
    if k < minimum:
        raise ParameterError(f"{what} needs at least {minimum} topics, got {k}",
                             fix="compare a model with more topics")
