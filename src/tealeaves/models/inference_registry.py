"""The registry of recorded inference methods: how a saved model infers topic proportions.

A live model infers the topic proportions of new documents with its own
``transform``; a model loaded from a file is a
:class:`~tealeaves.models.FixedTopicModel`.  So that a saved and loaded model
infers (and so scores) exactly as before, a model class fitted by tealeaves records
how it infers (``metadata_["inference"] = {"method": KEY, ...}``, saved with the
model) and registers the method under ``KEY`` with :func:`register_inference` when
its module is imported:

``plsa-fold-in``
    EM with the topics fixed (:func:`tealeaves.models.plsa.fold_in`), with the
    recorded ``max_iter`` and ``tol`` (registered by :mod:`tealeaves.models.plsa`);
``sklearn-e-step``
    scikit-learn's variational E-step on ``lambda = topic_word_ * totals``
    (:func:`tealeaves.models.sklearn_lda.estimator_from_record`, registered by
    :mod:`tealeaves.models.sklearn_lda`).

This module sits below :mod:`tealeaves.models.base` and imports no model module in
code: :data:`PROVIDERS` names, as data, the module that registers each known key, and
:func:`inference_method` imports it on first use, so a model loaded by
:func:`tealeaves.models.load_model` (which imports only ``base``) infers by its recorded
method without ``base`` knowing its subclasses.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves._params import renamed_parameters
from tealeaves.errors import InvalidModelError, ParameterError
from tealeaves.validation import check_float, check_int

if TYPE_CHECKING:
    import scipy.sparse as sp

#: The module that registers each known method key (imported by :func:`inference_method` on first use).
PROVIDERS: dict[str, str] = {"plsa-fold-in": "tealeaves.models.plsa",
                             "sklearn-e-step": "tealeaves.models.sklearn_lda"}


@dataclass(frozen=True)
class InferenceMethod:
    """One recorded way of inferring topic proportions.

    Parameters
    ----------
    key : str
        The ``method`` a record names (also written into completion signatures as ``infer=``).
    model_class : str
        Name of the model class whose ``transform`` this is (a live model of that class is
        named by ``key`` in signatures).
    check : callable
        ``check(record, n_components)`` raises :func:`record_error` for a malformed record.
    infer : callable
        ``infer(topic_word, record, counts)`` returns the ``D x K`` proportions of the
        documents of the CSR ``counts`` (over the model's vocabulary).
    """

    key: str
    model_class: str
    check: Callable[[dict, int], None]
    infer: Callable[[np.ndarray, dict, sp.csr_matrix], np.ndarray]


_METHODS: dict[str, InferenceMethod] = {}


def register_inference(method: InferenceMethod) -> InferenceMethod:
    """Register ``method`` under its key (called by the module that implements it, at import).

    Parameters
    ----------
    method : InferenceMethod
        The method to register; a later registration of the same key replaces it.

    Returns
    -------
    InferenceMethod
        ``method``.
    """
    _METHODS[method.key] = method
    return method


def inference_method(key: object) -> InferenceMethod | None:
    """The method registered under ``key``, importing its :data:`PROVIDERS` module if needed.

    Parameters
    ----------
    key : object
        A record's ``method`` (anything a model file holds).

    Returns
    -------
    InferenceMethod or None
        ``None`` when no module registers ``key``.
    """
    if not isinstance(key, str):
        return None
    if key not in _METHODS and key in PROVIDERS:
        importlib.import_module(PROVIDERS[key])
    return _METHODS.get(key)


def class_inference(class_name: str) -> str | None:
    """The key of the method registered for live models of class ``class_name``, or ``None``.

    Parameters
    ----------
    class_name : str
        A model class's name.

    Returns
    -------
    str or None
        The registered key, ``None`` when no method is registered for that class.
    """
    return next((m.key for m in _METHODS.values() if m.model_class == class_name), None)


def record_error(what: str) -> InvalidModelError:
    """The error for a malformed inference record (it comes from a model file).

    Parameters
    ----------
    what : str
        What is wrong with the record, completing "the model's recorded inference ...".

    Returns
    -------
    InvalidModelError
        The error to raise, with a fix suggesting to re-save the model.
    """
    return InvalidModelError(f"the model's recorded inference (metadata.inference) {what}",
                             fix="re-save the model from the fitted tealeaves model")


@renamed_parameters({"n_topics": "n_components"})
def check_record(record: object, n_components: int) -> InferenceMethod:
    """The registered method of an inference ``record``, after the method checked the record.

    Parameters
    ----------
    record : object
        ``metadata_["inference"]`` of a model read from a file.
    n_components : int
        The model's number of topics.

    Returns
    -------
    InferenceMethod
        The method that infers as ``record`` says.
    """
    method = inference_method(record.get("method")) if isinstance(record, dict) else None
    if method is None:
        name = record.get("method") if isinstance(record, dict) else record
        known = " or ".join(dict.fromkeys([*PROVIDERS, *_METHODS]))
        raise record_error(f"names the method {name!r}; expected {known}")
    method.check(record, n_components)
    return method


@shared_doc
def infer_with_record(topic_word: np.ndarray, record: dict, counts: sp.csr_matrix) -> np.ndarray:
    """``D x K`` proportions of the documents of ``counts`` by the method of a checked ``record``.

    Parameters
    ----------
    topic_word : numpy.ndarray
        The model's ``K x V`` topic-word probabilities.
    record : dict
        An inference record checked by :func:`check_record`.
    counts : scipy.sparse.csr_matrix
        The ``D x V`` document-word counts over the model's vocabulary.

    Returns: %(returns_doc_topic)s
    """
    return _METHODS[record["method"]].infer(topic_word, record, counts)


def is_number(value: object, zero: bool = False, integer: bool = False) -> bool:
    """Whether ``value`` is a finite positive (``zero``: non-negative) number, whole if ``integer``.

    :mod:`tealeaves.validation`'s rules; booleans are not numbers.

    Parameters
    ----------
    value : object
        The value to test.
    zero : bool, default False
        Accept zero.
    integer : bool, default False
        Require a whole number.

    Returns
    -------
    bool
        Whether ``value`` passes.
    """
    try:
        if integer:
            check_int(value, "value", min_value=0 if zero else 1)
        else:
            check_float(value, "value", min_value=0.0, include_min=zero)
    except ParameterError:
        return False
    return True


def need_number(record: dict, key: str, integer: bool = False, zero: bool = False) -> None:
    """Raise :func:`record_error` unless ``record[key]`` is a number as :func:`is_number` asks.

    Parameters
    ----------
    record : dict
        An inference record.
    key : str
        The entry to check.
    integer : bool, default False
        Require a whole number.
    zero : bool, default False
        Accept zero.

    Raises
    ------
    InvalidModelError
        When the entry is missing or not such a number.
    """
    value = record.get(key)
    if not is_number(value, zero, integer):
        kind = "whole number" if integer else "finite number"
        raise record_error(f"has {key}={value!r}; expected a {'non-negative' if zero else 'positive'} {kind}")
