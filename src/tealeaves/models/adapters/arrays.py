"""The model every adapter returns, and the adapter for raw arrays with a vocabulary.

:class:`AdaptedModel` is a :class:`~tealeaves.models.base.FixedTopicModel`
that also records the topic-word prior (``topic_word_prior_``: eta / beta),
the source library in ``metadata_["source"]`` and how topic proportions of new
documents are inferred (``inference``):

``"tealeaves"`` (default)
    tealeaves' own variational fold-in from ``phi`` and ``alpha``
    (:func:`tealeaves.models.inference.infer_theta`, Blei et al. 2003, §5.2);
    the same computation whatever library fitted the model.
``"native"``
    the source library's own inference (gensim's ``inference`` as used by
    ``get_document_topics``, tomotopy's ``infer``, scikit-learn's
    ``transform``), where it has one.

The choice is part of :meth:`AdaptedModel.description`, hence of every
likelihood signature (``.../inf-tealeaves`` or ``.../inf-native``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.errors import InvalidModelError, ParameterError, UnsupportedModelError
from tealeaves.models._fit import check_transform_input
from tealeaves.models.base import FixedTopicModel, check_topic_word
from tealeaves.validation import check_bool, check_choice

#: The documented values of ``inference=``.
INFERENCE_CHOICES = ("tealeaves", "native")

NativeTransform = Callable[[Corpus], np.ndarray]


class AdaptedModel(FixedTopicModel):
    """A model read from another library (or from raw arrays), behind the tealeaves protocol.

    Parameters are those of :class:`FixedTopicModel` plus ``topic_word_prior``,
    ``inference``, ``native_transform`` and ``not_probabilistic``.

    Parameters
    ----------
    topic_word : numpy.ndarray or None
        ``K x V`` topic-word distributions (rows summing to one), or None for a
        model with ranking weights only.
    vocabulary : Vocabulary or sequence of str
        The words of the ``V`` columns, in order.
    doc_topic_prior : float or numpy.ndarray, optional
        The Dirichlet prior alpha over topics (a scalar or a length-K vector),
        recorded as ``doc_topic_prior_``; tealeaves' fold-in needs it.
    topic_word_weights : numpy.ndarray, optional
        ``K x V`` ranking weights, for a model without ``topic_word``.
    metadata : dict, optional
        Initial ``metadata_`` (description, source library, ...).
    topic_word_prior : float or numpy.ndarray, optional
        eta/beta: a scalar, a length-V vector or a K x V matrix, positive and
        finite, recorded as ``topic_word_prior_`` (one number when symmetric).
    inference : {"tealeaves", "native"}, default "tealeaves"
        How topic proportions of new documents are inferred (module docstring).
    native_transform : callable, optional
        The library's inference: corpus -> ``D x K``, rows summing to one;
        required by ``inference="native"``.
    not_probabilistic : str, optional
        Why a model without ``topic_word_`` has no probabilities; quoted when a
        likelihood is asked for.

    Raises
    ------
    ParameterError
        If ``inference`` is not a documented choice, or is ``"native"`` for a model
        without probabilities or without ``native_transform``.
    InvalidModelError
        If the matrices, the vocabulary or the priors do not agree or are invalid.
    """

    def __init__(self, topic_word: np.ndarray | None, vocabulary: Vocabulary | Sequence[str],
                 doc_topic_prior: float | np.ndarray | None = None,
                 topic_word_weights: np.ndarray | None = None, metadata: dict | None = None, *,
                 topic_word_prior: float | np.ndarray | None = None, inference: str = "tealeaves",
                 native_transform: NativeTransform | None = None, not_probabilistic: str | None = None):
        super().__init__(topic_word, vocabulary, doc_topic_prior, topic_word_weights, metadata)
        self.inference = check_choice(inference, "inference", INFERENCE_CHOICES)
        self.topic_word_prior_ = _check_eta(topic_word_prior, self.topic_word_weights_.shape)
        self.not_probabilistic_ = not_probabilistic if self.topic_word_ is None else None
        self._native = native_transform
        if self.topic_word_ is None and inference == "native":
            raise ParameterError(f"inference='native' was asked for, but {self._name()} has no topic-word "
                                 f"probabilities, so no topic proportions to infer ({not_probabilistic})",
                                 fix="leave inference at its default")
        if inference == "native" and native_transform is None:
            raise ParameterError(f"{self._name()} has no native inference of topic proportions",
                                 fix="use inference='tealeaves' (tealeaves' fold-in from phi and alpha)")
        if self.topic_word_ is not None:
            self.metadata_["inference"] = self.inference
        self.metadata_.update(_prior_metadata(self.doc_topic_prior_, self.topic_word_prior_))

    def _name(self) -> str:
        return str(self.metadata_.get("description") or type(self).__name__)

    def description(self) -> str:
        """The source description and inference choice, e.g. ``gensim-4.4.0:LdaModel/K8/V9/inf-native``.

        Returns
        -------
        str
            ``metadata_["description"]`` (else the class name), followed by
            ``/inf-<inference>`` when the model has topic-word probabilities.
        """
        base = self._name()
        return base if self.topic_word_ is None else f"{base}/inf-{self.inference}"

    def model_metadata(self) -> dict:
        """Metadata as saved by :meth:`save`: a saved model infers with tealeaves' fold-in, so says so.

        Returns
        -------
        dict
            A copy of ``metadata_``; for a probabilistic model, ``inference`` is
            ``"tealeaves"`` and ``description`` ends in ``/inf-tealeaves``.
        """
        meta = dict(self.metadata_)
        if self.topic_word_ is not None:
            meta["inference"] = "tealeaves"
            meta["description"] = f"{self._name()}/inf-tealeaves"
        return meta

    def transform(self, corpus: Corpus) -> np.ndarray:
        """``D x K`` topic proportions of ``corpus`` by the chosen ``inference`` (module docstring).

        Parameters
        ----------
        corpus : Corpus
            The documents, over the model's vocabulary.

        Returns
        -------
        numpy.ndarray
            ``D x K`` topic proportions, one row per document.

        Raises
        ------
        UnsupportedModelError
            If the model has no topic-word probabilities, or (tealeaves' fold-in)
            no Dirichlet prior alpha.
        ParameterError
            If ``inference="native"`` and the model has no native inference.
        """
        check_transform_input(self, corpus)
        if self.topic_word_ is None:
            raise UnsupportedModelError(f"{self._name()} has no topic-word probabilities, so no topic "
                                        f"proportions can be inferred ({self.not_probabilistic_})")
        if check_choice(self.inference, "inference", INFERENCE_CHOICES) == "native":
            if self._native is None:
                raise ParameterError(f"{self._name()} has no native inference of topic proportions",
                                     fix="set inference='tealeaves'")
            return self._native(corpus)
        if self.doc_topic_prior_ is None:
            raise UnsupportedModelError(
                f"{self._name()} has no Dirichlet prior alpha over topics, which tealeaves' fold-in needs",
                fix="use inference='native' if its library has its own inference, or pass phi and alpha as "
                    "arrays: tealeaves.load_model(model.topic_word_, vocabulary=..., alpha=...)")
        return super().transform(corpus)


def _check_eta(eta: float | np.ndarray | None, shape: tuple[int, int]) -> float | np.ndarray | None:
    """A positive, finite topic-word prior: a scalar, a length-V vector or a K x V matrix."""
    if eta is None:
        return None
    arr = np.asarray(eta, dtype=np.float64)
    if arr.ndim and arr.shape not in ((shape[1],), shape):
        raise InvalidModelError(f"the topic-word prior (eta/beta) has shape {arr.shape}; expected a scalar, "
                                f"({shape[1]},) or {shape}")
    bad = arr[~(np.isfinite(arr) & (arr > 0))]
    if bad.size:
        raise InvalidModelError(f"the topic-word prior (eta/beta) must be positive and finite, got {bad[0]}")
    return float(arr.flat[0]) if np.all(arr == arr.flat[0]) else arr  # symmetric: one number


def _prior_metadata(alpha: np.ndarray | None, eta: float | np.ndarray | None) -> dict:
    """JSON-ready record of the priors: a number when symmetric, a list otherwise."""
    out: dict = {}
    if alpha is not None:
        out["doc_topic_prior"] = float(alpha[0]) if np.all(alpha == alpha[0]) else [float(a) for a in alpha]
    if eta is not None:
        out["topic_word_prior"] = eta if isinstance(eta, float) else np.asarray(eta).tolist()
    return out


def source_metadata(library: str, version: str, cls: type | str, description: str, *,
                    file: str | None = None, **extra) -> dict:
    """The ``metadata_`` dict of an adapted model (``description`` and ``source``; extra keys kept).

    Parameters
    ----------
    library : str
        The source library's name, e.g. ``"gensim"``.
    version : str
        Its version.
    cls : type or str
        The model's class (recorded as ``module.QualifiedName``) or its name.
    description : str
        The model's description, e.g. ``gensim-4.4.0:LdaModel/K8/V9``.
    file : str, optional
        The file the model was read from, recorded as ``source["file"]``.
    **extra
        Further top-level keys, kept as given.

    Returns
    -------
    dict
        ``{"description": ..., "source": {"library", "version", "class"[, "file"]}, **extra}``.
    """
    name = cls if isinstance(cls, str) else f"{cls.__module__}.{cls.__qualname__}"
    source = {"library": library, "version": version, "class": name}
    if file is not None:
        source["file"] = str(file)
    return {"description": description, "source": source, **extra}


def shape_tag(k: int, v: int) -> str:
    """The ``K<k>/V<v>`` part of a description.

    Parameters
    ----------
    k : int
        The number of topics.
    v : int
        The number of vocabulary words.

    Returns
    -------
    str
        ``f"K{k}/V{v}"``.

    Examples
    --------
    >>> shape_tag(8, 9)
    'K8/V9'
    """
    return f"K{k}/V{v}"


def as_vocabulary(vocabulary: object, n_columns: int, what: str) -> Vocabulary:
    """A :class:`Vocabulary` of exactly ``n_columns`` distinct words, or an error naming ``what``.

    Parameters
    ----------
    vocabulary : object
        The words of the columns: an iterable of non-empty strings, in order.
    n_columns : int
        The number of word columns of the model's matrix.
    what : str
        The model's name in error messages.

    Returns
    -------
    Vocabulary
        The words, in column order.

    Raises
    ------
    ParameterError
        If ``vocabulary`` is None, a single string, or has an entry that is not
        a non-empty string.
    InvalidModelError
        If it has not ``n_columns`` words, or lists a word twice.
    """
    if vocabulary is None:
        raise ParameterError(f"{what} needs a vocabulary: the words of its {n_columns} columns, in order",
                             fix="pass vocabulary=[...] (or vectorizer= for scikit-learn)")
    if isinstance(vocabulary, (str, bytes)):
        raise ParameterError(f"vocabulary must be a list of words, got a single string {vocabulary[:40]!r}")
    words = list(vocabulary)
    bad = [w for w in words if not isinstance(w, str) or not w]
    if bad:
        raise ParameterError(f"vocabulary entries must be non-empty strings, got {bad[0]!r}")
    if len(words) != n_columns:
        raise InvalidModelError(f"{what} has {n_columns} word columns but the vocabulary has {len(words)} "
                                "words", fix="pass the vocabulary the model was fitted with, in column order")
    try:
        return Vocabulary(words)
    except ValueError as exc:
        raise InvalidModelError(f"{what}: {exc}", fix="list each vocabulary word once") from None


def check_weights(weights: object, what: str) -> np.ndarray:
    """A finite, non-negative ``K x V`` ranking matrix with a positive entry in every topic.

    Parameters
    ----------
    weights : object
        The matrix: array-like, or a sparse matrix (``toarray()`` is called).
    what : str
        The matrix's name in error messages.

    Returns
    -------
    numpy.ndarray
        The weights as a float64 ``K x V`` array.

    Raises
    ------
    InvalidModelError
        If the matrix is not numeric, not a non-empty 2-d array, has NaN,
        infinite or negative values, or a topic without a positive weight.
    """
    try:
        w = np.asarray(weights.toarray() if hasattr(weights, "toarray") else weights, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidModelError(f"{what} is not a numeric matrix ({exc})") from None
    if w.ndim != 2 or 0 in w.shape:
        raise InvalidModelError(f"{what} must be a non-empty 2-d array (K x V), got shape {w.shape}")
    if not np.all(np.isfinite(w)):
        raise InvalidModelError(f"{what} has NaN or infinite values in topic "
                                f"{int(np.argmax(~np.isfinite(w).all(axis=1)))}")
    if np.any(w < 0):
        raise InvalidModelError(f"{what} has negative weights in topic {int(np.argmax((w < 0).any(axis=1)))}")
    empty = ~(w > 0).any(axis=1)
    if empty.any():
        raise InvalidModelError(f"{what}: topic {int(np.argmax(empty))} has no positive weight, so no "
                                "top words")
    return w


def from_arrays(topic_word: object, *, vocabulary: object = None, alpha: float | np.ndarray | None = None,
                eta: float | np.ndarray | None = None, probabilistic: bool = True,
                description: str | None = None, inference: str = "tealeaves") -> AdaptedModel:
    """A model from a ``K x V`` matrix and the words of its columns.

    With ``probabilistic=True`` (default) every row must be a distribution
    (:func:`~tealeaves.models.base.check_topic_word`; nothing is renormalised);
    with ``probabilistic=False`` the rows are ranking weights only (coherence
    and studies work, likelihood is refused).

    Parameters
    ----------
    topic_word : object
        The ``K x V`` matrix: array-like, or a sparse matrix.
    vocabulary : object
        The words of its ``V`` columns, in order (required).
    alpha : float or numpy.ndarray, optional
        The Dirichlet prior over topics (a scalar or a length-K vector).
    eta : float or numpy.ndarray, optional
        The topic-word prior (a scalar, a length-V vector or a K x V matrix).
    probabilistic : bool, default True
        Whether the rows are word distributions (else ranking weights).
    description : str, optional
        The model's description; default ``arrays/K<k>/V<v>``.
    inference : {"tealeaves", "native"}, default "tealeaves"
        How topic proportions are inferred; raw arrays have no native inference.

    Returns
    -------
    AdaptedModel
        The model, with ``metadata_["source"]`` naming numpy.

    Raises
    ------
    ParameterError
        If ``probabilistic`` is not a bool, or ``vocabulary`` is missing or malformed.
    InvalidModelError
        If the matrix is not a non-empty numeric 2-d array, a row is not a
        distribution (``probabilistic=True``) or the vocabulary does not fit it.
    """
    probabilistic = check_bool(probabilistic, "probabilistic")
    if hasattr(topic_word, "toarray"):
        topic_word = topic_word.toarray()
    try:
        arr = np.asarray(topic_word, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidModelError(f"the topic-word matrix is not numeric ({exc})") from None
    if arr.ndim != 2 or 0 in arr.shape:
        raise InvalidModelError(f"the topic-word matrix must be a non-empty 2-d array (K x V), got shape "
                                f"{arr.shape}")
    vocab = as_vocabulary(vocabulary, arr.shape[1], "the topic-word matrix")
    tag = shape_tag(*arr.shape)
    meta = source_metadata("numpy", np.__version__, "numpy.ndarray", description or f"arrays/{tag}")
    if probabilistic:
        return AdaptedModel(check_topic_word(arr, name="the topic-word matrix"), vocab, alpha, metadata=meta,
                            topic_word_prior=eta, inference=inference)
    return AdaptedModel(None, vocab, alpha, topic_word_weights=check_weights(arr, "the topic-word matrix"),
                        metadata=meta, topic_word_prior=eta, inference=inference,
                        not_probabilistic="its rows are weights, not probabilities (probabilistic=False)")
