"""Topic models behind one protocol (see :mod:`tealeaves.models.base`).

Foreign models enter through :mod:`tealeaves.models.adapters`: :func:`load_model` (the same function
as ``tealeaves.load_model``) reads any model object, array or file; :func:`load_npz_model` reads only
the ``.npz`` files written by :meth:`TopicModel.save`.
Names are exported lazily: importing one model does not load the others' kernels.
"""

from typing import TYPE_CHECKING

from tealeaves._lazy import lazy_package

if TYPE_CHECKING:  # the table of exports, one line per public name (tealeaves._lazy)
    # isort: off
    from tealeaves.models.adapters import load_model
    from tealeaves.models.base import FixedTopicModel
    from tealeaves.models.base import TopicModel
    from tealeaves.models.base import check_alpha
    from tealeaves.models.base import check_topic_word
    from tealeaves.models.base import load_npz_model
    from tealeaves.models.lda_gibbs import GibbsLDA
    from tealeaves.models.lsi import LSI
    from tealeaves.models.plsa import PLSA
    from tealeaves.models.polylingual import PolylingualTopicModel
    from tealeaves.models.sklearn_lda import SklearnLDA
    # isort: on

__getattr__, __dir__, __all__ = lazy_package(__name__)
