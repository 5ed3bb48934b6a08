"""Named coherence measures as settings of the pipeline (Röder, Both and Hinneburg 2015).

Every setting of a preset can be overridden (``Coherence("npmi", window=10)``).

========  ============  ==============  ==================  ===========  =========  =======
preset    segmentation  window          confirmation        aggregation  smoothing  zero
========  ============  ==============  ==================  ===========  =========  =======
umass     one-pre       doc             log-conditional     sum          1          limit
uci       one-one       10              pmi                 mean         0          epsilon
npmi      one-one       doc             npmi                mean         0          limit
c_v       one-set       110             cosine (NPMI, g=1)  mean         0          limit
========  ============  ==============  ==================  ===========  =========  =======

``umass`` follows Mimno et al. (2011) as written in the article: document
co-occurrence in the training corpus, ``+1`` added to the joint count, the sum
over pairs.  gensim's ``u_mass`` is ``smoothing=0, zero="epsilon",
aggregation="mean"``.  ``uci`` keeps PMI's customary epsilon because its
limit for a never co-occurring pair is ``-inf``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from tealeaves.coherence.aggregation import AGGREGATIONS
from tealeaves.coherence.confirmation import DIRECT, INDIRECT, ZERO_POLICIES
from tealeaves.coherence.core import COMPAT_MODES
from tealeaves.coherence.errors import SettingsError
from tealeaves.coherence.segmentation import SEGMENTATIONS, is_pairwise


@dataclass(frozen=True)
class MeasureSpec:
    """A full coherence pipeline: segmentation, probability estimation, confirmation, aggregation."""

    name: str
    segmentation: str
    window: str | int
    confirmation: str
    aggregation: str
    smoothing: float = 0.0
    zero: str = "limit"
    gamma: float = 1.0
    compat: str = "exact"

    def validate(self) -> MeasureSpec:
        """Check every setting; returns ``self``."""
        if self.segmentation not in SEGMENTATIONS:
            raise SettingsError(f"segmentation={self.segmentation!r} is not known; use one of "
                             f"{sorted(SEGMENTATIONS)}")
        if self.confirmation not in DIRECT + INDIRECT:
            raise SettingsError(f"confirmation={self.confirmation!r} is not known; "
                             f"use one of {DIRECT + INDIRECT}")
        if self.confirmation in DIRECT and not is_pairwise(self.segmentation):
            raise SettingsError(f"direct confirmation {self.confirmation!r} compares single words; use "
                             "segmentation one-one or one-pre, or confirmation='cosine' for one-set/one-all")
        if self.aggregation not in AGGREGATIONS:
            raise SettingsError(f"aggregation={self.aggregation!r} is not known; use one of {AGGREGATIONS}")
        if self.zero not in ZERO_POLICIES:
            raise SettingsError(f"zero={self.zero!r} is not known; use one of {ZERO_POLICIES}")
        if self.compat not in COMPAT_MODES:
            raise SettingsError(f"compat={self.compat!r} is not known; use one of {COMPAT_MODES}")
        if self.window != "doc" and (isinstance(self.window, bool) or not isinstance(self.window, int)
                                     or self.window < 1):
            raise SettingsError(f"window={self.window!r} must be 'doc' or a positive number of tokens")
        if not self.gamma > 0:
            raise SettingsError(f"gamma={self.gamma} must be positive")
        if self.smoothing < 0:
            raise SettingsError(f"smoothing={self.smoothing} must be >= 0")
        return self


PRESETS: dict[str, MeasureSpec] = {
    "umass": MeasureSpec("umass", "one-pre", "doc", "log-conditional", "sum", smoothing=1.0),
    "uci": MeasureSpec("uci", "one-one", 10, "pmi", "mean", zero="epsilon"),
    "npmi": MeasureSpec("npmi", "one-one", "doc", "npmi", "mean"),
    "c_v": MeasureSpec("c_v", "one-set", 110, "cosine", "mean"),
}
_ALIASES = {"u_mass": "umass", "c_uci": "uci", "c_npmi": "npmi", "cv": "c_v"}


def parse_window(window: str | int | None) -> str | int | None:
    """``"doc"``, ``None`` or a positive int (accepts numeric strings from the command line)."""
    if window is None or window == "doc":
        return window
    try:
        return int(window)
    except (TypeError, ValueError):
        raise SettingsError(f"window={window!r} must be 'doc' or a positive number of tokens") from None


def resolve(measure: str | MeasureSpec, **overrides) -> MeasureSpec:
    """The preset ``measure`` with the given non-``None`` settings overridden, validated."""
    if isinstance(measure, MeasureSpec):
        spec = measure
    else:
        key = _ALIASES.get(measure, measure)
        if key not in PRESETS:
            raise SettingsError(f"measure={measure!r} is not known; use one of {sorted(PRESETS)}")
        spec = PRESETS[key]
    names = {f.name for f in fields(MeasureSpec)}
    unknown = set(overrides) - names
    if unknown:
        raise SettingsError(f"unknown coherence settings {sorted(unknown)}; known: {sorted(names)}")
    changes = {k: v for k, v in overrides.items() if v is not None}
    if "window" in changes:
        changes["window"] = parse_window(changes["window"])
    for key in ("smoothing", "gamma"):
        if key in changes:
            changes[key] = float(changes[key])
    return replace(spec, **changes).validate()
