"""Bring your own model: one entry point for models fitted by other toolkits.

:func:`load_model` turns a fitted model of another library, its saved file, an
OCTIS output dict or a raw matrix into a tealeaves model
(:class:`~tealeaves.models.adapters.arrays.AdaptedModel`) with
``topic_word_`` (the library's own normalised distributions, ``None`` for
non-probabilistic models such as NMF and BERTopic), ``vocabulary_`` in the
library's column order, ``doc_topic_prior_``, ``topic_word_prior_`` and
``metadata_["source"]`` (library, version, class, file).  See ``docs/models.md``.

Objects are recognised by their class's module, so importing this package
imports none of gensim, tomotopy, scikit-learn or BERTopic.
"""

from __future__ import annotations

import inspect
import os

import numpy as np

from tealeaves.errors import ParameterError, UnsupportedModelError

#: What :func:`load_model` accepts, for error messages.
ACCEPTED = ("a tealeaves model", "gensim LdaModel/LdaMulticore", "scikit-learn LatentDirichletAllocation/NMF",
            "a tomotopy model", "BERTopic", "an OCTIS output dict", "a K x V array with vocabulary=",
            "a path to a saved model file")


def _library(obj: object) -> str:
    return type(obj).__module__.split(".")[0]


def _is_tealeaves_model(obj: object) -> bool:
    """Whether ``obj`` already follows the tealeaves model protocol (:mod:`tealeaves.models.base`)."""
    return hasattr(obj, "vocabulary_") and hasattr(obj, "topic_word_")


def _reject_options(what: str, options: dict) -> None:
    if options:
        raise ParameterError(f"{what} takes no options, got {', '.join(sorted(options))}")


def _call(adapter, source: object, options: dict):
    """``adapter(source, **options)``, refusing options it does not take (naming those it does)."""
    params = inspect.signature(adapter).parameters
    unknown = sorted(set(options) - {n for n, p in params.items() if p.kind is p.KEYWORD_ONLY})
    if unknown:
        accepted = [n for n, p in params.items() if p.kind is p.KEYWORD_ONLY and n != "file"]
        where = f"{adapter.__module__}.{adapter.__name__}"
        raise ParameterError(f"unknown option(s) {', '.join(unknown)} for {where}",
                             fix=f"it accepts {', '.join(accepted) or 'no options'}")
    return adapter(source, **options)


def load_model(source: object, **options):
    """A tealeaves model from ``source``: a native model object, a saved model file, a dict or an array.

    Options (keyword arguments) by source:

    * gensim ``LdaModel``/``LdaMulticore``: ``inference``;
    * scikit-learn ``LatentDirichletAllocation``/``NMF``/``Pipeline``: ``vectorizer`` or
      ``vocabulary``, ``inference``;
    * tomotopy models: ``inference``, ``native_iterations``;
    * BERTopic: ``ranking`` (``"representation"`` or ``"c-tf-idf"``);
    * OCTIS output dict: ``vocabulary`` (required), ``probabilistic``, ``alpha``, ``eta``;
    * arrays: ``vocabulary`` (required), ``alpha``, ``eta``, ``probabilistic``, ``description``;
    * a path (``str`` or ``os.PathLike``): passed to
      :func:`tealeaves.models.adapters.paths.load_path`, which reads the file's format; a
      results store takes ``model`` (the stored model's name), or is given as
      ``"results.sqlite#MODEL"``.

    ``inference`` is ``"tealeaves"`` (default: tealeaves' fold-in from phi and
    alpha) or ``"native"`` (the library's own inference); it decides how
    ``transform`` (and so document completion) infers topic proportions, and is
    recorded in the model's description.  An already adapted tealeaves model is
    returned unchanged.

    Parameters
    ----------
    source : object
        A fitted model of a supported library, a path, an OCTIS output dict, an array (or list,
        tuple, sparse matrix) of topic-word values, or a tealeaves model.
    **options
        The options of ``source``'s kind, listed above.

    Returns
    -------
    TopicModel
        The adapted model (``source`` itself when it is already a tealeaves model).

    Raises
    ------
    UnsupportedModelError
        When ``source`` is of no kind tealeaves can read.
    """
    if isinstance(source, (str, os.PathLike)):
        from tealeaves.models.adapters.paths import load_path

        return load_path(source, **options)
    lib = _library(source)
    if lib == "gensim":
        from tealeaves.models.adapters.gensim import from_gensim

        return _call(from_gensim, source, options)
    if lib == "sklearn":
        from tealeaves.models.adapters.sklearn import from_sklearn

        return _call(from_sklearn, source, options)
    if lib in ("tomotopy", "_tomotopy"):
        from tealeaves.models.adapters.tomotopy import from_tomotopy

        return _call(from_tomotopy, source, options)
    if lib == "bertopic":
        from tealeaves.models.adapters.bertopic import from_bertopic

        return _call(from_bertopic, source, options)
    if isinstance(source, dict):
        from tealeaves.models.adapters.octis import from_octis

        return _call(from_octis, source, options)
    if isinstance(source, (np.ndarray, list, tuple)) or hasattr(source, "toarray"):
        from tealeaves.models.adapters.arrays import from_arrays

        return _call(from_arrays, source, options)
    if _is_tealeaves_model(source):
        _reject_options("an already loaded tealeaves model", options)
        return source
    raise UnsupportedModelError(
        f"{type(source).__module__}.{type(source).__qualname__} is not a topic model tealeaves can read",
        fix=f"pass {', '.join(ACCEPTED[:-1])} or {ACCEPTED[-1]}; see docs/models.md")


__all__ = ["load_model", "ACCEPTED"]
