"""Paired comparison of two stored models, by :mod:`tealeaves.comparison.paired` on the stored scores.

* :func:`~tealeaves.comparison.paired.likelihood_difference`: held-out log-likelihood per
  word ``A - B`` with a paired bootstrap over the test documents, on the same held-out words;
* :func:`~tealeaves.comparison.paired.coherence_difference`: mean coherence ``A - B`` with a
  two-sample bootstrap over each model's topics.

Nothing is rescored: the per-document held-out log-likelihoods, word counts, per-topic
scores and signatures come from the results store.  Models over different vocabularies or
scored on different held-out words (another test corpus or split) are refused first.
"""

from __future__ import annotations

import numpy as np

from tealeaves._params import SEED
from tealeaves.errors import ParameterError
from tealeaves.sweep.params import LEVEL, N_BOOT
from tealeaves.sweep.results import SweepResults


def _completion(results: SweepResults, name: str):
    """Model ``name``'s stored document-completion result, as a ``CompletionResult``."""
    from tealeaves.likelihood import CompletionResult
    from tealeaves.signature import Signature

    row = results.model(name)
    ll, _ = results.heldout(name)
    n = int(row["heldout_words"])
    return CompletionResult(float(ll.sum()), float(row["completion_perplexity"]), int(row["documents_split"]),
                            int(row["documents_too_short"]), n, Signature.parse(row["signature"]), ll)


class _StoredCoherence:
    """A model's stored per-topic scores and signature of one measure (what the bootstrap reads)."""

    def __init__(self, results: SweepResults, name: str, measure: str):
        from tealeaves.signature import Signature

        topics = results.topics
        if measure not in topics.columns or measure not in results.signatures.get(name, {}):
            raise ParameterError(f"the results store has no per-topic {measure!r} scores",
                                 fix=f"choose one of {', '.join(results.sweep.get('measures', []))}")
        self.scores = results.topic_scores(name, measure)  # None: unscored; never NaN (validated store)
        self.signature = Signature.parse(results.signatures[name][measure])


def compare_models(a: SweepResults, name_a: str, b: SweepResults, name_b: str, measure: str | None = None,
                   n_boot: int = 2000, level: float = 0.95, seed: int = 0) -> dict:
    """Compare model ``name_a`` of ``a`` with ``name_b`` of ``b`` (the same store may be given twice).

    Parameters
    ----------
    a, b : SweepResults
        The results stores holding the two models.
    name_a, name_b : str
        The models' names (e.g. ``sklearn-K10-s0``).
    measure : str, optional
        Coherence measure compared (default: the sweep's first).
    n_boot : int
        Bootstrap replicates, 100 to 1,000,000.
    level : float
        Interval level, 0.5 to 0.999.
    seed : int
        Bootstrap seed.

    Returns
    -------
    dict
        The differences ``A - B`` with their intervals.
    """
    from tealeaves.comparison import coherence_difference, likelihood_difference

    n_boot, level, seed = N_BOOT.check(n_boot), LEVEL.check(level), SEED.check(seed)

    row_a, row_b = a.model(name_a), b.model(name_b)
    if row_a["vocabulary_hash"] != row_b["vocabulary_hash"]:
        raise ParameterError(f"models {name_a} and {name_b} have different vocabularies, so their "
                             "scores are not comparable", fix="compare models fitted on the same corpus")
    if row_a["split_hash"] != row_b["split_hash"]:
        raise ParameterError(f"models {name_a} and {name_b} were scored on different held-out words "
                             "(different test documents or splits)",
                             fix="compare models of sweeps with the same test documents and split_seed")
    measure = measure or (a.sweep.get("measures") or [None])[0]
    _, words = a.heldout(name_a)
    loglik = likelihood_difference(_completion(a, name_a), _completion(b, name_b), np.asarray(words),
                                   n_boot, level, seed)
    out = {"models": [name_a, name_b], "n_boot": n_boot, "level": level, "seed": seed,
           "loglik_per_word": {**loglik.to_dict(), "documents": int(len(words)),
                               "heldout_words": int(words.sum())}}
    if measure is not None:
        out["coherence"] = {**coherence_difference(_StoredCoherence(a, name_a, measure),
                                                   _StoredCoherence(b, name_b, measure),
                                                   n_boot, level, seed).to_dict(), "of": measure}
    return out
