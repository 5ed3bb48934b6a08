"""Input checks shared by the tealeaves model estimators."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves.corpus import Corpus
from tealeaves.errors import InvalidModelError

if TYPE_CHECKING:
    import scipy.sparse as sp


@shared_doc
def check_fit_input(corpus: Corpus, n_components: int, name: str) -> None:
    """Refuse an empty corpus, a non-positive K or more topics than vocabulary words.

    Parameters
    ----------
    %(fit_corpus)s
    n_components : int
        The estimator's ``n_components``, the number of topics K asked for.
    name : str
        The estimator's name for the messages (``"PLSA"``, ``"GibbsLDA"``, ...).

    Raises
    ------
    TypeError
        If ``corpus`` is not a tealeaves :class:`~tealeaves.corpus.Corpus`.
    EmptyInputError
        If the corpus has no document or no token.
    InvalidModelError
        If ``n_components`` is below 1 or larger than the vocabulary.
    """
    if not isinstance(corpus, Corpus):
        raise TypeError(f"{name}.fit expects a tealeaves Corpus, got {type(corpus).__name__}")
    corpus.require_nonempty(f"{name} training corpus")
    if int(n_components) < 1:
        raise InvalidModelError(f"{name}: n_components must be at least 1, got {n_components}")
    n_words = len(corpus.vocabulary)
    if n_components > n_words:
        raise InvalidModelError(
            f"{name}: n_components={n_components} is larger than the vocabulary ({n_words} words); "
            "choose fewer topics or a larger vocabulary (relax min_df/max_features)"
        )


def check_transform_input(model: object, corpus: Corpus) -> None:
    """Refuse documents encoded over a vocabulary of another size than the model's.

    Parameters
    ----------
    model : object
        A fitted model (its ``vocabulary_`` is read).
    corpus : Corpus
        The documents to transform.

    Raises
    ------
    InvalidModelError
        If the corpus's vocabulary and the model's differ in size (encode the corpus with the
        model's vocabulary: :func:`tealeaves.likelihood.align_corpus`).
    """
    n_model, n_corpus = len(model.vocabulary_), len(corpus.vocabulary)
    if n_model != n_corpus:
        raise InvalidModelError(
            f"the corpus has a {n_corpus}-word vocabulary but the model {n_model}; encode it with the "
            "model's vocabulary (tealeaves.likelihood.align_corpus)"
        )


@shared_doc
def transform_counts(model: object, corpus: Corpus) -> sp.csr_matrix:
    """``corpus``'s document-term counts as float64, once :func:`check_transform_input` accepts it.

    Parameters
    ----------
    model : object
        A fitted model (its ``vocabulary_`` is read).
    %(transform_corpus)s

    Returns
    -------
    scipy.sparse.csr_matrix
        The ``D x V`` counts.

    Raises: %(raises_other_vocabulary)s
    """
    check_transform_input(model, corpus)
    return corpus.counts.astype(np.float64)


def describe(model: object) -> str:
    """A short, signature-safe description of a fitted model (no ``|`` characters).

    Models may define ``description()``; otherwise the class name, K and V are used.

    Parameters
    ----------
    model : object
        A fitted model.

    Returns
    -------
    str
        ``model.description()`` with ``|`` replaced by ``/``, or ``<class>/K<K>/V<V>`` from the
        shape of its ``topic_word_weights_`` (``K0/V0`` when it has none).
    """
    if hasattr(model, "description"):
        return str(model.description()).replace("|", "/")
    weights = getattr(model, "topic_word_weights_", None)
    shape = getattr(weights, "shape", (0, 0))
    return f"{type(model).__name__}/K{shape[0]}/V{shape[1]}"


def fit_metadata(corpus: Corpus, source: dict, inference: dict | None = None) -> dict:
    """The ``metadata_`` of a model fitted by tealeaves on ``corpus`` (see :mod:`tealeaves.models.base`).

    ``source`` names the library, version and class that fitted it; the corpus's
    recorded preprocessing (``corpus.metadata["preprocessing"]``, the settings of
    the :class:`~tealeaves.corpus.Preprocessor` that encoded it) is kept so raw
    text can be tokenised the same way later; ``inference`` records how
    ``transform`` infers topic proportions, so a saved and loaded model infers
    them identically (:mod:`tealeaves.models.recorded_inference`).

    Parameters
    ----------
    corpus : Corpus
        The training corpus (its ``metadata["preprocessing"]`` is deep-copied when present).
    source : dict
        The library, version and class that fitted the model (copied).
    inference : dict or None, optional
        How ``transform`` infers topic proportions; left out of the metadata when None.

    Returns
    -------
    dict
        ``{"source": ..., "preprocessing": ..., "inference": ...}``, with the last two keys
        only when known.
    """
    meta: dict = {"source": dict(source)}
    preprocessing = corpus.metadata.get("preprocessing")
    if preprocessing is not None:
        meta["preprocessing"] = copy.deepcopy(preprocessing)
    if inference is not None:
        meta["inference"] = inference
    return meta


def tealeaves_source(cls: type) -> dict:
    """``source`` metadata of a model class implemented by tealeaves itself.

    Parameters
    ----------
    cls : type
        The model class (its ``__name__`` is recorded).

    Returns
    -------
    dict
        ``{"library": "tealeaves", "version": <tealeaves version>, "class": cls.__name__}``.
    """
    from tealeaves._version import __version__

    return {"library": "tealeaves", "version": __version__, "class": cls.__name__}
