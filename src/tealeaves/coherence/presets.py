"""Named coherence measures as settings of the pipeline (Röder, Both and Hinneburg 2015).

Every setting of a preset can be overridden (``Coherence("npmi", window=10)``).

============  ==============  ======  ====================  ====  =======  =======  ===============
preset        segmentation    window  confirmation          agg.  zero     min      other
============  ==============  ======  ====================  ====  =======  =======  ===============
umass         one-pre         doc     log-conditional       sum   limit    0        smoothing 1
uci           one-one         10      pmi                   mean  epsilon  0
npmi          one-one         doc     npmi                  mean  limit    0
c_v           one-set         110     cosine (NPMI, g=1)    mean  limit    0
jhlau_pmi     one-pre         20      pmi                   mean  zero     0        jhlau, log 10, absent 0
jhlau_npmi    one-pre         20      npmi                  mean  zero     0        jhlau, absent 0
palmetto_umass one-pre        doc     log-conditional       mean  epsilon  10       absent 0
palmetto_uci  one-one         10      log-ratio             mean  epsilon  100      absent 0
palmetto_npmi one-one         10      npmi                  mean  epsilon  100      absent 0
c_a           one-one         5       cosine (NPMI, g=1)    mean  epsilon  50       context windows, absent 0
c_p           one-pre         70      fitelson              mean  limit    700      absent 0
palmetto_c_v  one-set         110     cosine (NPMI, g=1)    mean  epsilon  1100     absent 0
tmtoolkit_umass one-pre       doc     log-conditional       mean  limit    0        smoothing 1e-12
============  ==============  ======  ====================  ====  =======  =======  ===============

``umass`` follows Mimno et al. (2011) as written in the article: document
co-occurrence in the training corpus, ``+1`` added to the joint count, the sum
over pairs.  gensim's ``u_mass`` is ``smoothing=0, zero="epsilon",
aggregation="mean"``.  ``uci`` keeps PMI's customary epsilon because its
limit for a never co-occurring pair is ``-inf``.

``tmtoolkit_umass`` reproduces tmtoolkit's ``metric_coherence_mimno_2011(eps=1e-12,
normalize=True)``, which tmtoolkit documents as gensim's ``u_mass`` but is not: it adds the
epsilon to the co-document *count*, ``log((D(w_m, w_l) + 1e-12) / D(w_l))``, where gensim
adds it to the *probability*, ``log((D(w_m, w_l) / N + 1e-12) / (D(w_l) / N))``.  For a pair
that never co-occurs the two differ by ``log N`` (``N`` documents); per topic, up to 1.7 on
the Reuters stories in benchmarks/peers_octis.py (docs/peers.md).  It is Mimno et al.'s
formula with a smoothing count of 1e-12 instead of 1, averaged: a reproduction of tmtoolkit,
not a recommended measure.

The ``jhlau_*`` presets are jhlau/topic_interpretability's ``ComputeWordCount.py``
(window 20; its window 0, the whole document, is ``window="doc"``) and
``ComputeObservedCoherence.py`` (log base 10; a pair with any zero count scores 0 and
counts in the mean).  The Palmetto presets are ``org.aksw.palmetto.Palmetto``'s
(Röder et al. 2015): every count below ``min_count`` (Palmetto: 10 x the window) is
taken as 0, and a segment with a word of probability 0 counts in the mean with the
measure's value at probability 0, as Palmetto computes it (``absent="zero"``; 0 for the
ratio measures); logarithms are natural.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from tealeaves._params import Param
from tealeaves.coherence.confirmation import DIRECT, INDIRECT, WITH_LOG
from tealeaves.coherence.errors import SettingsError
from tealeaves.coherence.params import (
    ABSENT,
    AGGREGATION,
    COMPAT,
    CONFIRMATION,
    GAMMA,
    LOG_BASE,
    MIN_COUNT,
    SEGMENTATION,
    SMOOTHING,
    WINDOW_KIND,
    ZERO,
)
from tealeaves.coherence.segmentation import is_pairwise
from tealeaves.validation import MAX_WINDOW, check_float, check_int, check_window

#: Segments holding a word of probability 0 (absent from the reference, or below ``min_count``): left out
#: (``skip``), or kept with the measure's value at probability 0 (``zero``, jhlau and Palmetto).
ABSENT_POLICIES = ("skip", "zero")
#: How windows are made: boolean sliding windows, or Palmetto's context windows (``P_cw``, C_A).
WINDOW_KINDS = ("sliding", "context")


@dataclass(frozen=True)
class MeasureSpec:
    """A full coherence pipeline: segmentation, probability estimation, confirmation, aggregation.

    The four steps of Röder, Both and Hinneburg (2015); :data:`PRESETS` holds the named measures.

    Parameters
    ----------
    name : str
        The measure's name (a preset's, or the one it was derived from).
    segmentation : str
        How topics are split (:mod:`tealeaves.coherence.segmentation`).
    window : str or int
        ``"doc"`` (whole documents) or a sliding window of this many tokens.
    confirmation : str
        How word sets confirm each other (:mod:`tealeaves.coherence.confirmation`).
    aggregation : str
        How the confirmations of a topic are combined (:mod:`tealeaves.coherence.aggregation`).
    smoothing : float, default 0.0
        Pseudo-count added to joint counts (>= 0).
    zero : str, default "limit"
        Value for pairs that never co-occur (:data:`~tealeaves.coherence.confirmation.ZERO_POLICIES`).
    gamma : float, default 1.0
        Exponent of the context vectors of indirect confirmations (> 0).
    compat : str, default "exact"
        Sliding-window counting (``exact``, ``gensim``, ``jhlau``).
    log_base : str, default "e"
        Base of the logarithms (``e``, ``2``, ``10``).
    min_count : int, default 0
        Counts below this are taken as 0 (Palmetto's minimum frequency).
    absent : str, default "skip"
        Segments with a word of probability 0: one of :data:`ABSENT_POLICIES`.
    window_kind : str, default "sliding"
        One of :data:`WINDOW_KINDS`.
    """

    name: str
    segmentation: str
    window: str | int
    confirmation: str
    aggregation: str
    smoothing: float = 0.0
    zero: str = "limit"
    gamma: float = 1.0
    compat: str = "exact"
    log_base: str = "e"
    min_count: int = 0
    absent: str = "skip"
    window_kind: str = "sliding"

    @property
    def direct(self) -> bool:
        """Whether the confirmation is direct (not a comparison of context vectors)."""
        return self.confirmation in DIRECT

    @property
    def needs_subsets(self) -> bool:
        """Whether scoring needs probabilities of word sets (direct measure, set segmentation)."""
        return self.direct and not is_pairwise(self.segmentation)

    def validate(self) -> MeasureSpec:
        """Check every setting; returns ``self``.

        Returns
        -------
        MeasureSpec
            ``self``.

        Raises
        ------
        SettingsError
            When a setting is not one of its choices or out of bounds, or context windows are combined
            with ``window="doc"``, word-set segmentations or ``compat``.
        """
        _choice(self.segmentation, SEGMENTATION, sort=True)
        for param in (CONFIRMATION, AGGREGATION, ZERO, COMPAT, LOG_BASE, ABSENT, WINDOW_KIND):
            _choice(getattr(self, param.name), param)
        if self.window != "doc" and (isinstance(self.window, bool) or not isinstance(self.window, int)
                                     or not 1 <= self.window <= MAX_WINDOW):
            raise SettingsError(f"window={self.window!r} must be 'doc' or a whole number of tokens from 1 to "
                                f"{MAX_WINDOW:,}", fix="e.g. window='doc' or window=10")
        GAMMA.check(self.gamma)
        SMOOTHING.check(self.smoothing)
        MIN_COUNT.check(self.min_count)
        if self.window_kind == "context":
            if self.window == "doc":
                raise SettingsError("context windows need a window size in tokens, not window='doc'",
                                    fix="give window=N, or window_kind='sliding'")
            if self.needs_subsets:
                raise SettingsError(f"context windows count word pairs only; segmentation "
                                    f"{self.segmentation!r} with direct confirmation {self.confirmation!r} "
                                    "needs word sets", fix="use window_kind='sliding' or a pairwise "
                                    "segmentation (one-one, one-pre, one-succeeding)")
            if self.compat != "exact":
                raise SettingsError(f"compat={self.compat!r} changes how sliding windows are counted; "
                                    "context windows have one definition", fix="drop compat")
        return self


def _choice(value, param: Param, sort: bool = False) -> None:
    """Refuse a value that is not one of ``param``'s declared choices."""
    if value not in param.choices:
        choices = sorted(param.choices) if sort else list(param.choices)
        raise SettingsError(f"{param.name}={value!r} is not known; use one of {choices}")


PRESETS: dict[str, MeasureSpec] = {
    "umass": MeasureSpec("umass", "one-pre", "doc", "log-conditional", "sum", smoothing=1.0),
    "uci": MeasureSpec("uci", "one-one", 10, "pmi", "mean", zero="epsilon"),
    "npmi": MeasureSpec("npmi", "one-one", "doc", "npmi", "mean"),
    "c_v": MeasureSpec("c_v", "one-set", 110, "cosine", "mean"),
    # jhlau/topic_interpretability: ComputeWordCount.py window_size = 20, ComputeObservedCoherence.py
    "jhlau_pmi": MeasureSpec("jhlau_pmi", "one-pre", 20, "pmi", "mean", zero="zero", compat="jhlau",
                             log_base="10", absent="zero"),
    "jhlau_npmi": MeasureSpec("jhlau_npmi", "one-pre", 20, "npmi", "mean", zero="zero", compat="jhlau",
                              log_base="10", absent="zero"),
    # org.aksw.palmetto.Palmetto.getCoherence; min frequency DEFAULT_MIN_FREQUENCY (10) x window
    # (boolean documents: the default 10)
    "palmetto_umass": MeasureSpec("palmetto_umass", "one-pre", "doc", "log-conditional", "mean",
                                  zero="epsilon", min_count=10, absent="zero"),
    "palmetto_uci": MeasureSpec("palmetto_uci", "one-one", 10, "log-ratio", "mean", zero="epsilon",
                                min_count=100, absent="zero"),
    "palmetto_npmi": MeasureSpec("palmetto_npmi", "one-one", 10, "npmi", "mean", zero="epsilon",
                                 min_count=100, absent="zero"),
    "c_a": MeasureSpec("c_a", "one-one", 5, "cosine", "mean", zero="epsilon", min_count=50, absent="zero",
                       window_kind="context"),
    "c_p": MeasureSpec("c_p", "one-pre", 70, "fitelson", "mean", min_count=700, absent="zero"),
    "palmetto_c_v": MeasureSpec("palmetto_c_v", "one-set", 110, "cosine", "mean", zero="epsilon",
                                min_count=1100, absent="zero"),
    "tmtoolkit_umass": MeasureSpec("tmtoolkit_umass", "one-pre", "doc", "log-conditional", "mean",
                                   smoothing=1e-12),
}
_ALIASES = {"u_mass": "umass", "c_uci": "uci", "c_npmi": "npmi", "cv": "c_v"}


def parse_window(window: str | int | None) -> str | int | None:
    """``"doc"``, ``None`` or a whole number of tokens >= 1 (numeric strings from the command line too).

    Parameters
    ----------
    window : str or int or None
        The window as given.

    Returns
    -------
    str or int or None
        ``"doc"``, ``None`` or the number of tokens.

    Raises
    ------
    ParameterError
        When ``window`` is neither; for 0, the message points to ``window="doc"``.
    """
    if window is None:
        return None
    return check_window(window)


def resolve(measure: str | MeasureSpec, **overrides) -> MeasureSpec:
    """The preset ``measure`` with the given non-``None`` settings overridden, validated.

    Overrides that would have no effect on the preset are refused rather than ignored:
    ``gamma`` with a direct confirmation, ``log_base`` with a measure without logarithm
    (NPMI is the same in every base), and ``compat`` when documents are counted.

    Parameters
    ----------
    measure : str or MeasureSpec
        A preset name (or an alias such as ``u_mass``, ``c_uci``, ``cv``), or a spec.
    **overrides
        Settings of :class:`MeasureSpec` to change; ``None`` values are ignored.

    Returns
    -------
    MeasureSpec
        The validated spec.

    Raises
    ------
    SettingsError
        When the measure or a setting is not known, a value is invalid, or an override has no
        effect.

    Examples
    --------
    >>> resolve("npmi", window=10).window
    10
    """
    if isinstance(measure, MeasureSpec):
        spec = measure
    else:
        key = _ALIASES.get(measure, measure) if isinstance(measure, str) else measure
        if key not in PRESETS:
            raise SettingsError(f"measure={measure!r} is not known; use one of {sorted(PRESETS)}",
                                fix="or give segmentation/confirmation/... overrides of one of them")
        spec = PRESETS[key]
    names = {f.name for f in fields(MeasureSpec)} - {"name"}
    unknown = set(overrides) - names
    if unknown:
        raise SettingsError(f"unknown coherence settings {sorted(unknown)}; known: {sorted(names)}")
    changes = {k: v for k, v in overrides.items() if v is not None}
    if "window" in changes:
        changes["window"] = parse_window(changes["window"])
    for key in ("smoothing", "gamma"):
        if key in changes:
            changes[key] = check_float(changes[key], key)
    if "min_count" in changes:
        changes["min_count"] = check_int(changes["min_count"], "min_count", min_value=0, allow_str=True)
    if "log_base" in changes:
        changes["log_base"] = str(changes["log_base"])
    out = replace(spec, **changes).validate()
    _check_overrides(out, changes)
    return out


def _check_overrides(spec: MeasureSpec, changes: dict) -> None:
    """Refuse overrides that do not change the computation (they would be silently ignored)."""
    if "gamma" in changes and spec.direct:
        raise SettingsError(f"gamma only shapes the context vectors of indirect confirmations {INDIRECT}; "
                            f"{spec.confirmation!r} is direct",
                            fix="drop gamma, or choose confirmation='cosine'")
    uses_log = spec.confirmation in WITH_LOG
    if "log_base" in changes and changes["log_base"] != "e" and not uses_log:
        raise SettingsError(f"log_base changes only {WITH_LOG}; {spec.confirmation!r} is the same in "
                            "every base", fix="drop log_base")
    if "compat" in changes and spec.window == "doc":
        raise SettingsError(f"compat={spec.compat!r} selects how sliding windows are counted, but this "
                            "measure counts whole documents (window='doc')",
                            fix="give a window in tokens, or drop compat (jhlau's window 0 is window='doc' "
                                "with the jhlau_npmi / jhlau_pmi presets)")
