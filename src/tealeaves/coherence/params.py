"""The parameters of :func:`tealeaves.coherence.coherence` / :class:`~tealeaves.coherence.Coherence`,
declared once (:class:`tealeaves._params.Param`) for the Python API and ``tealeaves coherence``.

This module imports no numerical library, so that the command line can build its options
(``tealeaves --help``) without loading the counting kernels; :mod:`tealeaves.coherence.measure`
and :mod:`tealeaves.coherence.presets` check their arguments with these declarations, and
``tests/test_coherence_compat.py`` checks the choices against the modules' constants.
"""

from __future__ import annotations

from tealeaves._params import Param, declare

#: Choices of the coherence settings (the modules' constants, checked equal by the tests).
CHOICES = {
    "segmentation": ("one-one", "one-pre", "one-succeeding", "one-set", "one-all", "one-any", "any-any"),
    "confirmation": ("log-conditional", "pmi", "log-ratio", "npmi", "difference", "ratio", "fitelson",
                     "jaccard", "log-jaccard", "likelihood", "log-likelihood", "cosine", "dice",
                     "indirect-jaccard"),
    "aggregation": ("mean", "median", "sum"),
    "zero": ("limit", "epsilon", "zero"),
    "compat": ("exact", "gensim", "jhlau"),
    "log_base": ("e", "2", "10"),
    "absent": ("skip", "zero"),
    "window_kind": ("sliding", "context"),
    "measure": ("umass", "uci", "npmi", "c_v", "jhlau_pmi", "jhlau_npmi", "palmetto_umass", "palmetto_uci",
                "palmetto_npmi", "c_a", "c_p", "palmetto_c_v", "tmtoolkit_umass"),
}

#: Top words per topic: a whole number >= 2 (a list of them is averaged, Lau and Baldwin 2016).
N_TOP = Param("n_top", "int", min_value=2, deprecated_flags=("--top",),
              help="top words per topic; several, e.g. 5,10,15,20, give the mean over those cardinalities")
#: A co-occurrence window: ``"doc"`` (whole documents) or a whole number of tokens >= 1.
WINDOW = Param("window", "window", help="'doc' or a window size in tokens")
SMOOTHING = Param("smoothing", "float", min_value=0, help="pseudo-count added to joint counts (>= 0)")
GAMMA = Param("gamma", "float", min_value=0, include_min=False,
              help="exponent of the context vectors of indirect confirmations (> 0)")
MIN_COUNT = Param("min_count", "int", min_value=0,
                  help="counts below this are taken as 0 (Palmetto's minimum frequency)")
#: Help text of each choice setting (its choices: :data:`CHOICES`), declared in this order below.
_CHOICE_HELP = {
    "segmentation": "how topics are split",
    "confirmation": "how word sets confirm each other",
    "aggregation": "how the confirmations of a topic are combined",
    "zero": "value for pairs that never co-occur (default: limit, NPMI -1)",
    "compat": "sliding-window counting",
    "log_base": "base of the logarithms of PMI, log-conditional, log-Jaccard (default e)",
    "absent": "segments with a word of probability 0: left out (skip) or scored 0 (zero)",
    "window_kind": "boolean sliding windows, or Palmetto's context windows (C_A)",
}
SEGMENTATION, CONFIRMATION, AGGREGATION, ZERO, COMPAT, LOG_BASE, ABSENT, WINDOW_KIND = (
    Param(name, "choice", choices=CHOICES[name], help=text) for name, text in _CHOICE_HELP.items())

#: Budget of the counts' working set above the mapped index, spelled as the build's (``1G``, ``512M``):
#: the documents are counted in ranges that fit it (:mod:`tealeaves.coherence._blocked`).
MEMORY = Param("memory", "str", help="memory budget of the counts above the mapped index, e.g. 512M, 4G "
                                     "(the scores do not depend on it)")

#: Every declaration, by Python name.
PARAMS = declare(N_TOP, SMOOTHING, GAMMA, MIN_COUNT, SEGMENTATION, CONFIRMATION, AGGREGATION, ZERO, COMPAT,
                 LOG_BASE, ABSENT, WINDOW_KIND, MEMORY)
#: Topics whose word-pair matrices the text report prints (``--pairs``); each is a topic index, checked
#: as ``topic`` by :meth:`~tealeaves.coherence.measure.CoherenceResult.pair_matrix`.
PAIRS = Param("pairs", "int", min_value=0, help="also print these topics' word-pair matrices (text output)")
