"""A model's own inference of topic proportions, kept across save and load.

A live model infers the topic proportions of new documents with its
``transform``; a model loaded from a file is a
:class:`~tealeaves.models.FixedTopicModel`.  So that a saved and loaded model
infers (and so scores) exactly as before, models fitted by tealeaves record how
they infer (``metadata_["inference"]``, saved with them) and
``FixedTopicModel.transform`` folds in the recorded way:

``plsa-fold-in``
    EM with the topics fixed (:func:`tealeaves.models.plsa.fold_in`), with the
    recorded ``max_iter`` and ``tol``;
``sklearn-e-step``
    scikit-learn's variational E-step on ``lambda = topic_word_ * totals``
    (:func:`tealeaves.models.sklearn_lda.estimator_from_record`);
``vb-fold-in``
    no record: :func:`tealeaves.models.inference.infer_theta` with the model's
    alpha (``1/K`` without one), what ``FixedTopicModel.transform`` does.

The method's name goes into the completion signature (``infer=``), so two
figures share a signature only if their proportions were inferred the same way.
A record that is not a dict (e.g. the adapters' ``"native"``/``"tealeaves"``
choice, which the adapted model's own ``transform`` implements) leaves the
inference to ``transform`` and is named ``<Class>.transform/<record>``.
"""

from __future__ import annotations

import numpy as np

from tealeaves.corpus import Corpus
from tealeaves.errors import InvalidModelError, ParameterError
from tealeaves.validation import check_float, check_int

#: The inference of each tealeaves model class when it carries no record.
CLASS_INFERENCE = {"PLSA": "plsa-fold-in", "SklearnLDA": "sklearn-e-step", "FixedTopicModel": "vb-fold-in"}


def _raw_record(model: object) -> object:
    return (getattr(model, "metadata_", None) or {}).get("inference")


def recorded_inference(model: object) -> dict | None:
    """The validated ``metadata_["inference"]`` of a loaded model, or ``None`` (its class's own inference)."""
    from tealeaves.models.base import FixedTopicModel

    record = _raw_record(model)
    if not isinstance(model, FixedTopicModel) or not isinstance(record, dict):
        return None
    _check_record(record, model.n_topics)
    return record


def inference_name(model: object) -> str:
    """How ``model``'s topic proportions are inferred, as recorded in signatures."""
    record = recorded_inference(model)
    if record is not None:
        return record["method"]
    name = type(model).__name__
    raw = _raw_record(model)
    if isinstance(raw, str):
        return f"{name}.transform/{raw}".replace("|", "/")
    return CLASS_INFERENCE.get(name, f"{name}.transform")


def infer_recorded(model: object, record: dict, corpus: Corpus) -> np.ndarray:
    """``D x K`` topic proportions of ``corpus`` (over the model's vocabulary) by the recorded method."""
    if record["method"] == "plsa-fold-in":
        from tealeaves.models.plsa import fold_in

        return fold_in(model.topic_word_, corpus.counts, record["max_iter"], record["tol"])
    from tealeaves.models.sklearn_lda import estimator_from_record

    theta = estimator_from_record(model.topic_word_, record).transform(corpus.counts.astype(np.float64))
    sums = theta.sum(axis=1, keepdims=True)  # as SklearnLDA.transform
    return np.divide(theta, sums, out=np.full_like(theta, 1.0 / theta.shape[1]), where=sums > 0)


def _check_record(record: object, n_topics: int) -> None:
    """Refuse a malformed inference record (it comes from a model file)."""
    def bad(what: str) -> InvalidModelError:
        return InvalidModelError(f"the model's recorded inference (metadata.inference) {what}",
                                 fix="re-save the model from the fitted tealeaves model")

    if not isinstance(record, dict) or record.get("method") not in ("plsa-fold-in", "sklearn-e-step"):
        method = record.get("method") if isinstance(record, dict) else record
        raise bad(f"names the method {method!r}; expected plsa-fold-in or sklearn-e-step")
    if record["method"] == "plsa-fold-in":
        _need_number(record, "max_iter", bad, integer=True)
        _need_number(record, "tol", bad, zero=True)
        return
    totals = record.get("topic_word_totals")
    if (not isinstance(totals, list) or len(totals) != n_topics
            or not all(_is_number(t) for t in totals)):
        raise bad(f"has topic_word_totals {str(totals)[:60]}; expected {n_topics} positive finite numbers")
    _need_number(record, "doc_topic_prior", bad)
    _need_number(record, "max_doc_update_iter", bad, integer=True)
    _need_number(record, "mean_change_tol", bad, zero=True)


def _is_number(value: object, zero: bool = False, integer: bool = False) -> bool:
    """Whether ``value`` is a finite positive (``zero``: non-negative) number, whole if ``integer``
    (:mod:`tealeaves.validation`'s rules; booleans are not numbers)."""
    try:
        if integer:
            check_int(value, "value", min_value=0 if zero else 1)
        else:
            check_float(value, "value", min_value=0.0, include_min=zero)
    except ParameterError:
        return False
    return True


def _need_number(record: dict, key: str, bad, integer: bool = False, zero: bool = False) -> None:
    value = record.get(key)
    if not _is_number(value, zero, integer):
        kind = "whole number" if integer else "finite number"
        raise bad(f"has {key}={value!r}; expected a {'non-negative' if zero else 'positive'} {kind}")
