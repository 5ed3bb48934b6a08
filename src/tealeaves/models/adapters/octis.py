"""OCTIS model output: the dict returned by ``model.train_model(dataset)``.

OCTIS (Terragni et al. 2021) returns ``{"topics": [[word, ...], ...],
"topic-word-matrix": K x V, "topic-document-matrix": K x D, ...}``.  The
matrix's columns are words of the model's own vocabulary, which the dict does
not carry, so ``vocabulary=`` is required (for OCTIS's gensim-based LDA: the
trained model's ``id2word`` order, which is *not* always the dataset's
``vocabulary.txt`` order).  Each listed topic must be a top-n of its matrix
row under that vocabulary (ties allowed), which catches a vocabulary in the
wrong order.

``probabilistic=None`` (default) treats the matrix as word distributions when
every row sums to one within 1e-6 (LDA, ProdLDA...) and as ranking weights
otherwise (NMF, LSI with non-negative rows...); ``True``/``False`` say which.
The topic-document matrix, if present, is kept as ``doc_topic_`` (D x K).
Without a matrix, use the topics as word lists (``coherence(output["topics"], ...)``).
"""

from __future__ import annotations

import numpy as np

from tealeaves.errors import InputFormatError, ParameterError
from tealeaves.models.adapters.arrays import AdaptedModel, from_arrays, shape_tag

#: The keys OCTIS output dicts have.
KEYS = ("topics", "topic-word-matrix", "topic-document-matrix")


def _is_distribution(phi: np.ndarray) -> bool:
    return bool(np.all(np.isfinite(phi)) and np.all(phi >= 0) and np.allclose(phi.sum(axis=1), 1.0, atol=1e-6,
                                                                              rtol=0))


def _check_topics(model: AdaptedModel, topics) -> None:
    """Every listed topic must be a top-n of its row (ties allowed), else the vocabulary is wrong."""
    if not isinstance(topics, (list, tuple, np.ndarray)) or not all(
            isinstance(t, (list, tuple, np.ndarray)) and all(isinstance(w, str) for w in t) for t in topics):
        raise InputFormatError("the OCTIS output's 'topics' must be a list of word lists",
                               fix="give the dict OCTIS's model.train_model returned")
    if len(topics) != model.n_topics:
        raise InputFormatError(f"the OCTIS output lists {len(topics)} topics but its matrix has "
                               f"{model.n_topics}")
    weights, index = model.topic_word_weights_, model.vocabulary_.index
    for k, words in enumerate(topics):
        words = [str(w) for w in words]
        ids = [index.get(w, -1) for w in words]
        if not words:
            continue
        if min(ids) < 0:
            raise InputFormatError(f"OCTIS topic {k} lists {words[ids.index(-1)]!r}, which the vocabulary "
                                   "lacks",
                                   fix="pass the vocabulary of the trained model")
        threshold = np.sort(weights[k])[::-1][len(words) - 1]
        if np.any(weights[k, ids] < threshold):
            top = model.top_words(len(words))[k]
            raise InputFormatError(
                f"OCTIS topic {k} lists {' '.join(words[:5])} ... but its matrix row ranks "
                f"{' '.join(top[:5])} ... first under this vocabulary",
                fix="pass the vocabulary in the matrix's column order (OCTIS LDA: the trained id2word)")


def _matrix(value, key: str) -> np.ndarray:
    """``value`` as a float array; a ragged or non-numeric matrix is an :class:`InputFormatError`."""
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputFormatError(f"the {key} is not a matrix of numbers ({exc})",
                               fix="give the dict OCTIS's model.train_model returned") from None


def from_octis(output: dict, *, vocabulary=None, probabilistic: bool | None = None, alpha=None, eta=None,
               inference: str = "tealeaves") -> AdaptedModel:
    """Adapt an OCTIS output dict (see the module docstring).

    Parameters
    ----------
    output : dict
        What ``model.train_model(dataset)`` returned; must have
        ``"topic-word-matrix"`` (``K x V``, dense or sparse).
    vocabulary : sequence of str
        The words of the matrix's columns, in order (OCTIS's gensim-based LDA:
        the trained model's ``id2word`` order). Required.
    probabilistic : bool or None, default None
        Whether the matrix rows are word distributions; None decides from the
        matrix (every row sums to one within 1e-6).
    alpha : float or numpy.ndarray, optional
        The Dirichlet prior over topics.
    eta : float or numpy.ndarray, optional
        The topic-word prior.
    inference : {"tealeaves", "native"}, default "tealeaves"
        How topic proportions of new documents are inferred (see
        :mod:`tealeaves.models.adapters.arrays`).
        OCTIS output has no native inference.

    Returns
    -------
    AdaptedModel
        The model; ``doc_topic_`` (``D x K``) holds the topic-document matrix
        when the dict has one.

    Raises
    ------
    InputFormatError
        If the dict has no topic-word matrix, its topic list disagrees with the
        matrix under ``vocabulary`` (count, unknown word, or not a top-n of its
        row), or its topic-document matrix has the wrong shape.
    ParameterError
        If ``probabilistic`` is not None, True or False, or the vocabulary is
        missing or malformed.
    InvalidModelError
        If the matrix is invalid or does not fit the vocabulary.
    """
    if "topic-word-matrix" not in output:
        found = ", ".join(map(repr, sorted(map(str, output)))) or "nothing"
        raise InputFormatError(f"the dict has no 'topic-word-matrix' (found {found}); an OCTIS output dict "
                               f"has {', '.join(map(repr, KEYS))}",
                               fix="score output['topics'] as word lists, or train OCTIS with the matrix")
    if probabilistic is not None and not isinstance(probabilistic, bool):
        raise ParameterError(f"probabilistic must be None, True or False, got {probabilistic!r}")
    phi = _matrix(output["topic-word-matrix"], "topic-word-matrix") if not hasattr(
        output["topic-word-matrix"], "toarray") else output["topic-word-matrix"].toarray()
    if probabilistic is None:
        probabilistic = phi.ndim == 2 and _is_distribution(phi)
    model = from_arrays(phi, vocabulary=vocabulary, alpha=alpha, eta=eta, probabilistic=probabilistic,
                        description=f"octis/{shape_tag(*phi.shape)}" if phi.ndim == 2 else None,
                        inference=inference)
    model.metadata_["source"] = {"library": "octis", "version": "?", "class": "output-dict"}
    if output.get("topics") is not None:
        _check_topics(model, output["topics"])
    if output.get("topic-document-matrix") is not None:
        theta = _matrix(output["topic-document-matrix"], "topic-document-matrix")
        if theta.ndim != 2 or theta.shape[0] != model.n_topics:
            raise InputFormatError(f"the topic-document-matrix has shape {theta.shape}; expected "
                                   f"({model.n_topics}, D)")
        model.doc_topic_ = theta.T
    return model
