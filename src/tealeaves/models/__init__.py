"""Topic models behind one protocol (see :mod:`tealeaves.models.base`)."""

from tealeaves.models.base import (
    FixedTopicModel,
    TopicModel,
    check_alpha,
    check_topic_word,
    load_model,
)
from tealeaves.models.lsi import LSI
from tealeaves.models.plsa import PLSA
from tealeaves.models.polylingual import PolylingualTopicModel
from tealeaves.models.sklearn_lda import SklearnLDA

__all__ = [
    "TopicModel",
    "FixedTopicModel",
    "load_model",
    "check_topic_word",
    "check_alpha",
    "PLSA",
    "LSI",
    "SklearnLDA",
    "PolylingualTopicModel",
]
