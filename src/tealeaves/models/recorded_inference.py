"""A model's own inference of topic proportions, kept across save and load, named in signatures.

Models fitted by tealeaves record how they infer (``metadata_["inference"]``, saved
with them) and ``FixedTopicModel.transform`` folds in the recorded way; the methods
and their checks live in :mod:`tealeaves.models.inference_registry`, where each model
module registers its own.  Without a record, ``vb-fold-in``:
:func:`tealeaves.models.inference.infer_theta` with the model's alpha (``1/K``
without one), what ``FixedTopicModel.transform`` does.

The method's name goes into the completion signature (``infer=``), so two
figures share a signature only if their proportions were inferred the same way.
A record that is not a dict (e.g. the adapters' ``"native"``/``"tealeaves"``
choice, which the adapted model's own ``transform`` implements) leaves the
inference to ``transform`` and is named ``<Class>.transform/<record>``.
"""

from __future__ import annotations

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves.corpus import Corpus
from tealeaves.models.base import FixedTopicModel
from tealeaves.models.inference_registry import class_inference, infer_with_record

#: The inference of a loaded model without a record.
DEFAULT_INFERENCE = {"FixedTopicModel": "vb-fold-in"}


def recorded_inference(model: object) -> dict | None:
    """The validated ``metadata_["inference"]`` of a loaded model, or ``None`` (its class's own inference).

    Parameters
    ----------
    model : object
        Any tealeaves model; only a :class:`~tealeaves.models.FixedTopicModel` follows a record.

    Returns
    -------
    dict or None
        The checked record.
    """
    return model.inference_record() if isinstance(model, FixedTopicModel) else None


def inference_name(model: object) -> str:
    """How ``model``'s topic proportions are inferred, as recorded in signatures.

    Parameters
    ----------
    model : object
        Any tealeaves model, fitted in this process or loaded from a file.

    Returns
    -------
    str
        The recorded method, the registered method of a live model's class, or ``<Class>.transform``.
    """
    record = recorded_inference(model)
    if record is not None:
        return record["method"]
    name = type(model).__name__
    raw = (getattr(model, "metadata_", None) or {}).get("inference")
    if isinstance(raw, str):
        return f"{name}.transform/{raw}".replace("|", "/")
    return class_inference(name) or DEFAULT_INFERENCE.get(name, f"{name}.transform")


@shared_doc
def infer_recorded(model: object, record: dict, corpus: Corpus) -> np.ndarray:
    """``D x K`` topic proportions of ``corpus`` (over the model's vocabulary) by the recorded method.

    Parameters
    ----------
    model : object
        A model with ``topic_word_``.
    record : dict
        Its checked inference record (:func:`recorded_inference`).
    %(transform_corpus)s

    Returns: %(returns_doc_topic)s
    """
    return infer_with_record(model.topic_word_, record, corpus.counts)
