"""Per-topic feature table for the coherence estimator (Hao et al. 2018, §3.1).

:func:`topic_features` computes, for the bilingual topics of a language pair
(l1 = the high-resource side, English in the paper; l2 = the other language),
over a (poor) reference:

=========  ===============================================================
C          cardinality (number of top words per language)
cnpmi      CNPMI(l1, l2, k)
inpmi      mean of NPMI(l1, k) and NPMI(l2, k)
mta        matching translation accuracy (needs ``dictionary``)
twc        topic word coverage
mc, icc    MC(l1; l2, k), ICC(l1, l2, k), alpha = 0.001
era_mean   mean / std of the first-attestation year of l1's words (needs ``era``)
era_std
drift_*    mean / std of the drift cosine of l1's words (needs ``drift``)
=========  ===============================================================

plus diagnostic counts.  Groups whose resource is not given are left out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from tealeaves._params import renamed_parameters
from tealeaves.multilingual import measures as M
from tealeaves.multilingual.dictionaries import BilingualDictionary
from tealeaves.multilingual.drift import MeaningDrift
from tealeaves.multilingual.era import WordEra
from tealeaves.signature import Signature


@renamed_parameters({"zero_cooccurrence": "zero"})
def topic_features(topics: M.Topics, reference, l1: str, l2: str, *,
                   dictionary: BilingualDictionary | None = None, era: WordEra | None = None,
                   drift: MeaningDrift | None = None, zero: str = "limit",
                   mta_mode: str = "pairs") -> tuple[pd.DataFrame, dict[str, str]]:
    """One row per topic with the estimator features; also the signature of each measure.

    The features of the coherence estimator (Hao, Boyd-Graber and Paul 2018, §3.1; table in
    the module docstring): CNPMI and INPMI (Hao et al. 2018, NPMI of Bouma 2009), MTA, TWC,
    MC and ICC (eq. 5-6), and the optional era and drift groups.
    Diagnostic columns: ``inpmi_<lang>``, ``mta_uncovered`` (1 when the dictionary lists none
    of the topic's words; its MTA is 0), ``era_n_missing``, ``drift_n_missing``.

    Parameters
    ----------
    topics : mapping
        ``{language: [[word, ...] per topic]}`` holding ``l1`` and ``l2``
        (:mod:`tealeaves.multilingual.topics`).
    reference : AlignedReference, str or os.PathLike
        The (poor) aligned reference, or a built-in name or saved folder
        (:func:`~tealeaves.multilingual.measures.as_aligned_reference`).
    l1 : str
        The high-resource language (English in the paper).
    l2 : str
        The other language.
    dictionary : BilingualDictionary, optional
        An ``l1``-``l2`` dictionary: adds ``mta`` and ``mta_uncovered``.
    era : WordEra, optional
        First-attestation years: adds ``era_mean``, ``era_std``, ``era_n_missing``.
    drift : MeaningDrift, optional
        A fitted meaning drift: adds ``drift_mean``, ``drift_std``, ``drift_n_missing``.
    zero : str, default "limit"
        NPMI of present words that never co-occur, for CNPMI and INPMI ("limit": -1,
        "zero": 0, "epsilon"; :data:`~tealeaves.multilingual.measures.ZERO_COOCCURRENCE`).
    mta_mode : str, default "pairs"
        The ``mode`` of :func:`~tealeaves.multilingual.measures.mta`.

    Returns
    -------
    tuple of (pandas.DataFrame, dict of str to str)
        The feature table (one row per topic) and each measure's signature as a string, by
        measure name (``cnpmi``, ``inpmi``, ``twc``, ``mc``, ``icc``, and ``mta``, ``era``,
        ``drift`` when computed).
    """
    langs, k, c = M.check_multilingual_topics(topics, [l1, l2])
    reference = M.counting_reference(reference, [l1, l2])
    pair = {l1: topics[l1], l2: topics[l2]}
    cn = M.cnpmi(pair, reference, [l1, l2], zero)
    inp = M.inpmi(pair, reference, [l1, l2], zero)
    tw = M.twc(pair, reference, [l1, l2])
    mc, icc = M.gap_features(cn, inp, l1, l2)
    cols: dict[str, Sequence] = {
        "C": [min(len(topics[l1][t]), len(topics[l2][t])) for t in range(k)],
        "cnpmi": cn.per_topic, "inpmi": inp.per_topic, "twc": tw.per_topic,
        "mc": mc.per_topic, "icc": icc.per_topic,
        f"inpmi_{l1}": inp.details["per_language"][l1], f"inpmi_{l2}": inp.details["per_language"][l2],
    }
    sigs = {s.measure: str(s.signature) for s in (cn, inp, tw, mc, icc)}
    if dictionary is not None:
        mt = M.mta(pair, dictionary, l1, l2, mta_mode)
        cols["mta"] = mt.per_topic
        cols["mta_uncovered"] = np.isin(np.arange(k), mt.details["uncovered_topics"]).astype(int)
        sigs["mta"] = str(mt.signature)
    if era is not None:
        stats = np.array([era.features(topics[l1][t]) for t in range(k)])
        cols["era_mean"], cols["era_std"], cols["era_n_missing"] = stats[:, 0], stats[:, 1], stats[:, 2]
        sigs["era"] = str(Signature("era", {"source": era.source, "missing": era.missing_year, "lang": l1}))
    if drift is not None:
        stats = np.array([drift.features(topics[l1][t]) for t in range(k)])
        cols["drift_mean"], cols["drift_std"], cols["drift_n_missing"] = stats[:, 0], stats[:, 1], stats[:, 2]
        sigs["drift"] = str(Signature("drift", {"win": drift.window, "missing": drift.missing_value,
                                              "lang": l1}))
    return pd.DataFrame(cols), sigs
