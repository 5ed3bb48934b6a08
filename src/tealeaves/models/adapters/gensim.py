"""gensim ``LdaModel`` / ``LdaMulticore``, in memory or saved with ``model.save(path)``.

The topic-word distributions are gensim's ``get_topics()``: the variational
Dirichlet parameters ``lambda = state.get_lambda()`` normalised by row
(Hoffman, Blei and Bach 2010), computed here in double precision; column ``j``
is word ``id2word[j]``.  ``alpha`` (length K) and ``eta`` (scalar, length V or
K x V) are the model's own priors, as learnt if ``'auto'`` was used.

``inference="native"`` runs gensim's variational E-step ``model.inference``
(what ``get_document_topics`` calls) and normalises ``gamma``; unlike
``get_document_topics(bow, minimum_probability=0)`` it does not drop topics
below gensim's floor of 1e-8.  gensim starts ``gamma`` from random draws of
the model's ``random_state``, so repeated calls differ slightly.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves._optional import optional_import
from tealeaves.corpus import Corpus
from tealeaves.errors import InputFormatError, InputNotFoundError, InvalidModelError, UnsupportedModelError
from tealeaves.models.adapters.arrays import AdaptedModel, shape_tag, source_metadata

#: gensim classes read by this adapter (and their subclasses).
SUPPORTED = ("LdaModel", "LdaMulticore")

_HINTS = {
    "HdpModel": "convert it with model.suggested_lda_model() first",
    "LsiModel": "LSI has no probabilities; build a tealeaves.models.LSI or pass its topics as word lists",
    "LdaSeqModel": "take one time slice's topics as an array: tealeaves.load_model(phi, vocabulary=...)",
}


def _gensim():
    return optional_import("gensim", "gensim", "reading a gensim model")


@shared_doc
def vocabulary_of(lda) -> list[str]:
    """The words of gensim's columns: ``id2word[0] ... id2word[num_terms - 1]``.

    Parameters: %(gensim_lda)s

    Returns
    -------
    list of str
        One word per column, in column order.

    Raises
    ------
    UnsupportedModelError
        If the model has no ``id2word``, or it lacks a word for some column id.
    """
    id2word = lda.id2word
    n = int(lda.num_terms)
    if id2word is None:
        raise UnsupportedModelError("the gensim model has no id2word, so its columns have no words",
                                    fix="train it with id2word=<your Dictionary>")
    missing = [i for i in range(n) if i not in id2word]
    if missing:
        raise UnsupportedModelError(
            f"the gensim model's id2word has no word for {len(missing)} of its {n} columns (e.g. id "
            f"{missing[0]})", fix="call dictionary.compactify() before training so ids run from 0 to V-1")
    return [str(id2word[i]) for i in range(n)]


@shared_doc
def topic_word(lda) -> np.ndarray:
    """gensim's ``get_topics()`` in float64: ``lambda / lambda.sum(axis=1)``.

    Parameters: %(gensim_lda)s

    Returns
    -------
    numpy.ndarray
        ``K x V`` topic-word distributions: the variational Dirichlet parameters
        ``lambda = state.get_lambda()`` normalised by row (Hoffman, Blei and Bach 2010).
    """
    lam = np.asarray(lda.state.get_lambda(), dtype=np.float64)
    return lam / lam.sum(axis=1, keepdims=True)


class NativeInference:
    """gensim's E-step on a corpus: ``lda.inference(bows)``, gamma normalised (a picklable callable).

    Calling it with a :class:`~tealeaves.corpus.Corpus` gives the ``D x K`` topic
    proportions (see the module docstring).

    Parameters
    ----------
    lda : gensim.models.LdaModel
        The trained gensim model whose ``inference`` is run.
    """

    def __init__(self, lda):
        self.lda = lda

    def __call__(self, corpus: Corpus) -> np.ndarray:
        counts = corpus.counts
        bows = [list(zip(counts.indices[a:b].tolist(), counts.data[a:b].tolist()))
                for a, b in zip(counts.indptr[:-1], counts.indptr[1:])]
        gamma, _ = self.lda.inference(bows)
        gamma = np.asarray(gamma, dtype=np.float64)
        return gamma / gamma.sum(axis=1, keepdims=True)


@shared_doc
def from_gensim(lda, *, inference: str = "tealeaves", file: str | os.PathLike | None = None) -> AdaptedModel:
    """Adapt a fitted gensim ``LdaModel`` or ``LdaMulticore`` (see the module docstring).

    Parameters
    ----------
    lda : gensim.models.LdaModel
        A trained ``LdaModel`` or ``LdaMulticore`` (or a subclass).
    inference : {"tealeaves", "native"}, default "tealeaves"
        How topic proportions of new documents are inferred; ``"native"`` runs
        gensim's ``model.inference`` (:class:`NativeInference`).
    %(foreign_file)s

    Returns
    -------
    AdaptedModel
        The normalised ``lambda`` with the model's own ``alpha`` and ``eta``.

    Raises
    ------
    UnsupportedModelError
        If ``lda`` is not a gensim LDA model (with a hint for HDP, LSI and
        LdaSeq models), or its ``id2word`` does not name every column.
    %(raises_untrained)s
    """
    gensim = _gensim()
    from gensim.models import LdaModel

    name = type(lda).__name__
    if not isinstance(lda, LdaModel):
        hint = _HINTS.get(name, "tealeaves reads gensim LdaModel and LdaMulticore")
        raise UnsupportedModelError(f"gensim {name} is not a model tealeaves can read", fix=hint)
    if getattr(lda, "state", None) is None or int(lda.state.numdocs) == 0:
        raise InvalidModelError(f"the gensim {name} has not been trained (it has seen no documents)",
                                fix="train it on a corpus (update() or the corpus= argument) first")
    vocab = vocabulary_of(lda)
    phi = topic_word(lda)
    meta = source_metadata("gensim", gensim.__version__, type(lda),
                           f"gensim-{gensim.__version__}:{name}/{shape_tag(*phi.shape)}",
                           file=None if file is None else str(file))
    return AdaptedModel(phi, vocab, np.asarray(lda.alpha, dtype=np.float64), metadata=meta,
                        topic_word_prior=np.asarray(lda.eta, dtype=np.float64), inference=inference,
                        native_transform=NativeInference(lda))


@shared_doc
def from_file(path: str | os.PathLike, *, inference: str = "tealeaves") -> AdaptedModel:
    """Adapt a gensim LDA model saved with ``model.save(path)`` (its ``.state`` file must sit beside it).

    gensim files are Python pickles: load only files you trust.

    Parameters
    ----------
    %(saved_model_path)s
    inference : {"tealeaves", "native"}, default "tealeaves"
        As in :func:`from_gensim`.

    Returns: %(returns_saved_model)s

    Raises
    ------
    %(raises_no_saved_model)s
    InputFormatError
        If ``path.state`` is missing or the file cannot be loaded as a gensim
        ``LdaModel``.
    """
    path = Path(path)
    if not path.is_file():
        raise InputNotFoundError(f"no gensim model file at {path}")
    _gensim()
    from gensim.models import LdaModel

    if not Path(f"{path}.state").is_file():
        raise InputFormatError(f"{path} has no companion file {path.name}.state, so it is not a saved gensim "
                               "LdaModel", fix="keep every file gensim's save() wrote next to each other")
    try:
        lda = LdaModel.load(str(path))
    except Exception as exc:  # unpickling can fail in many ways; report which
        raise InputFormatError(f"{path} could not be read as a saved gensim LdaModel "
                               f"({type(exc).__name__}: {exc})") from None
    try:
        return from_gensim(lda, inference=inference, file=path)
    except (AttributeError, KeyError, IndexError, TypeError) as exc:  # a pickle that lost a field
        raise InputFormatError(f"{path} was read as a gensim LdaModel, but it lacks or damages a field "
                               f"every saved LdaModel has ({type(exc).__name__}: {exc})",
                               fix="save the model again with gensim's save()") from None
