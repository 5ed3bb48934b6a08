"""The topic-model protocol every tealeaves measure works on.

A fitted model exposes

``vocabulary_``
    the :class:`~tealeaves.corpus.Vocabulary` its columns refer to;
``topic_word_``
    a ``K x V`` array whose rows are probability distributions over words
    (``None`` for models without probabilities, such as LSI);
``topic_word_weights_``
    a ``K x V`` array used to *rank* words within a topic (equal to
    ``topic_word_`` for probabilistic models; LSI's signed loadings);
``doc_topic_prior_``
    the Dirichlet parameter ``alpha`` as a length-``K`` vector, or ``None``;
``metadata_`` (optional)
    a JSON-ready dict describing where the model came from: ``description``
    (the short name used in signatures), ``source`` (``library``,
    ``version``, ``file``, ``class`` of the tool that fitted it, as recorded
    by an adapter) and ``preprocessing`` (the recorded settings of the
    :class:`~tealeaves.corpus.Preprocessor` that made its vocabulary, so raw
    text can be tokenised the same way); saved and loaded with the model;

and ``transform(corpus)``, which returns the ``D x K`` topic proportions of new
documents.  Any object with these attributes is a tealeaves model; deriving
from :class:`TopicModel` adds ``top_words`` and ``save``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves._params import renamed_parameters
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import InvalidModelError
from tealeaves.models.inference_registry import check_record, infer_with_record

FORMAT_VERSION = 1


def check_topic_word(phi: np.ndarray, *, atol: float = 1e-6, name: str = "topic_word_") -> np.ndarray:
    """Validate a topic-word matrix: finite, non-negative, rows summing to one.

    Parameters
    ----------
    phi : numpy.ndarray
        The ``K x V`` topic-word matrix.
    atol : float, default 1e-6
        How far a row's sum may be from one.
    name : str, default "topic_word_"
        The name used in error messages.

    Returns
    -------
    numpy.ndarray
        ``phi`` as a float64 array.

    Raises
    ------
    InvalidModelError
        Naming the first offending topic when ``phi`` is not 2-d and non-empty, has NaN or
        infinite or negative values, or a row not summing to one.
    """
    phi = np.asarray(phi, dtype=np.float64)
    if phi.ndim != 2 or phi.shape[0] == 0 or phi.shape[1] == 0:
        raise InvalidModelError(f"{name} must be a non-empty 2-d array (K x V), got shape {phi.shape}")
    bad = ~np.isfinite(phi).all(axis=1)
    if bad.any():
        raise InvalidModelError(f"{name} has NaN or infinite values in topic {int(np.argmax(bad))}")
    neg = (phi < 0).any(axis=1)
    if neg.any():
        raise InvalidModelError(f"{name} has negative probabilities in topic {int(np.argmax(neg))}")
    sums = phi.sum(axis=1)
    off = np.abs(sums - 1.0) > atol
    if off.any():
        k = int(np.argmax(off))
        raise InvalidModelError(
            f"{name} row {k} sums to {sums[k]:.6g}, not 1; normalise each topic "
            "(phi / phi.sum(axis=1, keepdims=True)) before evaluating"
        )
    return phi


@renamed_parameters({"n_topics": "n_components"})
def check_alpha(alpha: float | np.ndarray | None, n_components: int) -> np.ndarray | None:
    """Return alpha as a positive length-``K`` vector (a scalar is broadcast).

    Parameters
    ----------
    alpha : float or numpy.ndarray or None
        The Dirichlet parameter, a scalar or one value per topic.
    n_components : int
        The number of topics ``K``.

    Returns
    -------
    numpy.ndarray or None
        The length-``K`` float64 vector, or ``None`` when ``alpha`` is ``None``.

    Raises
    ------
    InvalidModelError
        When a value is not positive and finite, or ``alpha`` is neither one number nor ``K`` of them.
    """
    if alpha is None:
        return None
    a = np.asarray(alpha, dtype=np.float64)
    if a.ndim > 1 or a.size not in (1, n_components):
        raise InvalidModelError(f"doc_topic_prior_ (alpha) must be one number or {n_components} values, one "
                                f"per topic (K = {n_components}); got an array of shape {a.shape}")
    a = np.broadcast_to(a.reshape(-1), (n_components,)).copy()
    if not np.all(np.isfinite(a)) or np.any(a <= 0):
        raise InvalidModelError(f"doc_topic_prior_ (alpha) must be positive and finite, got {a[:5]}")
    return a


class TopicModel:
    """Base class with the shared behaviour of fitted tealeaves models."""

    vocabulary_: Vocabulary
    topic_word_: np.ndarray | None
    doc_topic_prior_: np.ndarray | None = None
    metadata_: dict

    def model_metadata(self) -> dict:
        """The model's metadata (see the module docstring), with its ``description`` filled in.

        Returns
        -------
        dict
            A copy of ``metadata_`` with ``description`` added when the class defines one.
        """
        meta = dict(getattr(self, "metadata_", None) or {})
        if "description" not in meta and type(self).description is not TopicModel.description:
            meta["description"] = self.description()
        return meta

    def description(self) -> str:
        """Short, signature-safe name of the model (kept across save and load).

        Returns
        -------
        str
            ``metadata_["description"]`` when set, else ``<Class>/K<topics>/V<words>``.
        """
        meta = getattr(self, "metadata_", None) or {}
        if meta.get("description"):
            return str(meta["description"])
        w = self.topic_word_weights_
        return f"{type(self).__name__}/K{w.shape[0]}/V{w.shape[1]}"

    @property
    def topic_word_weights_(self) -> np.ndarray:
        """Weights used to rank words in each topic (``topic_word_`` by default)."""
        if self.topic_word_ is None:
            raise InvalidModelError(f"{type(self).__name__} has no topic-word weights")
        return self.topic_word_

    @property
    def n_topics(self) -> int:
        return int(self.topic_word_weights_.shape[0])

    def top_word_ids(self, n: int = 10) -> np.ndarray:
        """``K x n`` array of each topic's ``n`` highest-weighted word ids, best first.

        Ties are broken by word id, so the ranking is deterministic.

        Parameters
        ----------
        n : int, default 10
            Words per topic (at most the vocabulary size).

        Returns
        -------
        numpy.ndarray
            The ``K x n`` word ids, ranked by ``topic_word_weights_``.

        Raises
        ------
        ValueError
            When ``n`` is below 1.
        """
        w = self.topic_word_weights_
        if n < 1:
            raise ValueError(f"n must be at least 1, got {n}")
        n = min(n, w.shape[1])
        # lexsort: last key is primary; sort by -weight then id
        order = np.lexsort((np.broadcast_to(np.arange(w.shape[1]), w.shape), -w), axis=1)
        return order[:, :n]

    def top_words(self, n: int = 10) -> list[list[str]]:
        """Each topic's ``n`` highest-weighted words, best first.

        Parameters
        ----------
        n : int, default 10
            Words per topic.

        Returns
        -------
        list of list of str
            The words of :meth:`top_word_ids`.
        """
        vocab = self.vocabulary_
        return [[vocab[i] for i in row] for row in self.top_word_ids(n)]

    @shared_doc
    def transform(self, corpus: Corpus) -> np.ndarray:  # pragma: no cover - abstract
        """Topic proportions of the documents of ``corpus`` (implemented by subclasses).

        Parameters: %(transform_corpus)s

        Returns: %(returns_doc_topic)s
        """
        raise NotImplementedError

    # -- persistence --------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Save the fitted parameters to a ``.npz`` file readable by :func:`load_npz_model`.

        Parameters
        ----------
        path : str or Path
            The file to write; a suffix other than ``.npz`` is replaced by ``.npz``.

        Returns
        -------
        Path
            The file written.
        """
        path = Path(path)
        if path.suffix != ".npz":
            path = path.with_suffix(".npz")
        meta = {
            "format": "tealeaves-model",
            "format_version": FORMAT_VERSION,
            "class": type(self).__name__,
            "vocabulary": list(self.vocabulary_),
            "probabilistic": self.topic_word_ is not None,
            "metadata": self.model_metadata(),
        }
        arrays = {"topic_word_weights": np.asarray(self.topic_word_weights_, dtype=np.float64)}
        if self.doc_topic_prior_ is not None:
            arrays["doc_topic_prior"] = np.asarray(self.doc_topic_prior_, dtype=np.float64)
        np.savez_compressed(path, meta=np.array(json.dumps(meta)), **arrays)
        return path


class FixedTopicModel(TopicModel):
    """A model given by its parameters alone (e.g. read from another tool's output).

    ``transform`` infers topic proportions with the variational fold-in of
    :func:`tealeaves.models.inference.infer_theta`, which needs ``alpha``.

    Parameters
    ----------
    topic_word : numpy.ndarray or None
        The ``K x V`` topic-word probabilities (checked by :func:`check_topic_word`), or
        ``None`` for a model without probabilities.
    vocabulary : Vocabulary or list of str
        The words of the columns.
    doc_topic_prior : float or numpy.ndarray or None, optional
        The Dirichlet parameter ``alpha`` (checked by :func:`check_alpha`).
    topic_word_weights : numpy.ndarray or None, optional
        Weights ranking the words of each topic, when they differ from ``topic_word``.
    metadata : dict or None, optional
        The model's metadata (see the module docstring).

    Raises
    ------
    InvalidModelError
        When neither ``topic_word`` nor ``topic_word_weights`` is given, or the number of columns
        differs from the vocabulary's size.
    """

    def __init__(
        self,
        topic_word: np.ndarray | None,
        vocabulary: Vocabulary | list[str],
        doc_topic_prior: float | np.ndarray | None = None,
        topic_word_weights: np.ndarray | None = None,
        metadata: dict | None = None,
    ):
        self.metadata_ = dict(metadata or {})
        self.vocabulary_ = vocabulary if isinstance(vocabulary, Vocabulary) else Vocabulary(vocabulary)
        self.topic_word_ = None if topic_word is None else check_topic_word(topic_word)
        self._weights = topic_word_weights
        ref = self.topic_word_ if self.topic_word_ is not None else topic_word_weights
        if ref is None:
            raise InvalidModelError("a model needs topic_word or topic_word_weights")
        if ref.shape[1] != len(self.vocabulary_):
            raise InvalidModelError(
                f"topic-word matrix has {ref.shape[1]} columns but the vocabulary has "
                f"{len(self.vocabulary_)} words"
            )
        self.doc_topic_prior_ = check_alpha(doc_topic_prior, ref.shape[0])

    @property
    def topic_word_weights_(self) -> np.ndarray:
        return self._weights if self._weights is not None else super().topic_word_weights_

    def inference_record(self) -> dict | None:
        """The model's checked recorded inference (``metadata_["inference"]``), or ``None`` without one.

        Returns
        -------
        dict or None
            The record, after the method it names (:mod:`tealeaves.models.inference_registry`)
            checked it; :class:`~tealeaves.errors.InvalidModelError` for a malformed record.
        """
        record = (getattr(self, "metadata_", None) or {}).get("inference")
        if not isinstance(record, dict):
            return None
        check_record(record, self.n_topics)
        return record

    @shared_doc
    def transform(self, corpus: Corpus) -> np.ndarray:
        """Topic proportions of ``corpus``.

        The fitting model's recorded inference if the model file records one
        (:mod:`tealeaves.models.inference_registry`), else tealeaves' variational fold-in.

        Parameters: %(transform_corpus)s

        Returns: %(returns_doc_topic)s

        Raises
        ------
        InvalidModelError
            When the model has no probabilities and no recorded inference.
        """
        from tealeaves.models.inference import infer_theta

        record = self.inference_record()
        if record is not None:
            return infer_with_record(self.topic_word_, record, corpus.counts)
        if self.topic_word_ is None:
            raise InvalidModelError("this model has no probabilities; it cannot infer topic proportions")
        alpha = self.doc_topic_prior_ if self.doc_topic_prior_ is not None else 1.0 / self.n_topics
        return infer_theta(self.topic_word_, alpha, corpus)


def load_npz_model(path: str | Path) -> FixedTopicModel:
    """Load a model saved by :meth:`TopicModel.save` (a tealeaves ``.npz`` file, and only that).

    :func:`tealeaves.load_model` (also ``tealeaves.models.load_model``) reads this format and
    every other model or topics file, objects and arrays.

    Parameters
    ----------
    path : str or Path
        The ``.npz`` file written by :meth:`TopicModel.save`.

    Returns
    -------
    FixedTopicModel
        The saved topics, vocabulary, ``alpha`` and metadata.

    Raises
    ------
    InvalidModelError
        When ``path`` cannot be read or is not a tealeaves model file.
    """
    import zipfile
    import zlib

    path = Path(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            weights = z["topic_word_weights"]
            alpha = z["doc_topic_prior"] if "doc_topic_prior" in z else None
    except (OSError, EOFError, KeyError, ValueError, NotImplementedError, zipfile.BadZipFile,
            zlib.error) as exc:
        raise InvalidModelError(f"{path} is not a tealeaves model file ({exc})") from None
    except RecursionError:
        raise InvalidModelError(f"{path} is not a tealeaves model file (its metadata is nested too deeply)"
                                ) from None
    check_npz_meta(meta, weights, path)
    if alpha is not None and (alpha.ndim > 1 or (alpha.ndim == 1 and alpha.shape[0] != weights.shape[0])
                              or alpha.dtype.kind not in "fiu"):
        raise InvalidModelError(f"{path} is not a readable tealeaves model file: its alpha has shape "
                                f"{alpha.shape} ({alpha.dtype}) for {weights.shape[0]} topics",
                                fix="save the model again (TopicModel.save)")
    extra = meta.get("metadata") or {}
    if meta["probabilistic"]:
        return FixedTopicModel(weights, meta["vocabulary"], alpha, metadata=extra)
    return FixedTopicModel(None, meta["vocabulary"], alpha, topic_word_weights=weights, metadata=extra)


def check_npz_meta(meta: object, weights: np.ndarray, path: str | Path) -> None:
    """Validate the ``meta`` header and weights of a saved ``.npz`` model (:meth:`TopicModel.save`).

    The header is a JSON object declaring ``format`` ``tealeaves-model`` and version
    :data:`FORMAT_VERSION`, a ``vocabulary`` of distinct strings, ``probabilistic`` (a bool: whether
    the weights are probabilities) and an optional ``metadata`` object; the weights are a numeric
    ``K x V`` array over that vocabulary, finite (probabilities are checked further by
    :func:`check_topic_word`).

    Parameters
    ----------
    meta : object
        The decoded header.
    weights : numpy.ndarray
        The saved ``topic_word_weights`` array.
    path : str or Path
        The file, for messages.

    Raises
    ------
    InvalidModelError
        Naming the first field that is missing or malformed.
    """
    def bad(what: str) -> InvalidModelError:
        return InvalidModelError(f"{path} is not a readable tealeaves model file: {what}",
                                 fix="save the model again (TopicModel.save)")

    if not isinstance(meta, dict) or meta.get("format") != "tealeaves-model":
        raise InvalidModelError(f"{path} is not a tealeaves model file")
    if meta.get("format_version", FORMAT_VERSION) != FORMAT_VERSION:
        raise bad(f"format version {meta.get('format_version')!r}; this tealeaves reads {FORMAT_VERSION}")
    if not isinstance(meta.get("probabilistic"), bool):
        raise bad("its header lacks 'probabilistic' (true or false)")
    vocab = meta.get("vocabulary")
    if not isinstance(vocab, list) or not vocab or not all(isinstance(w, str) for w in vocab):
        raise bad("its header lacks a 'vocabulary' list of words")
    if not isinstance(meta.get("metadata", {}), (dict, type(None))):
        raise bad("its 'metadata' is not an object")
    if (weights.ndim != 2 or weights.shape[0] == 0 or weights.shape[1] != len(vocab)
            or weights.dtype.kind not in "fiu"):
        raise bad(f"its weights have shape {weights.shape} ({weights.dtype}), not topics x {len(vocab)} "
                  "words")
    finite = np.isfinite(weights).all(axis=1)
    if not finite.all():
        raise bad(f"topic_word_ has NaN or infinite values in topic {int(np.argmin(finite))}")


#: The former name of :func:`load_npz_model` in this module (``tealeaves.models.load_model`` is
#: :func:`tealeaves.load_model`, which reads every format).
load_model = load_npz_model
