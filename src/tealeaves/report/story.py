"""The K-selection story told from a sweep's own numbers (the article's "Choosing the number of topics").

:func:`k_story` states, from the stored means over seeds at each K: whether completion
perplexity keeps improving as K grows, where mean coherence peaks, whether the library's
reported perplexity rises (the article's point that scikit-learn's bound points the wrong
way), and which topic is the least coherent, with the junk-topic flags the sweep stored
(``tealeaves.comparison.flags``) and their explanations.
Every sentence is computed; none is fixed text about an expected outcome.
"""

from __future__ import annotations

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves.report import hooks


def _means(results, column: str) -> list[tuple[int, float]]:
    models = results.models[["k", column]].dropna()
    return sorted((int(k), float(v)) for k, v in models.groupby("k")[column].mean().items())


def _trend(points: list[tuple[int, float]]) -> str:
    diffs = np.diff([v for _, v in points])
    if len(diffs) == 0:
        return "is measured at one K only"
    if np.all(diffs < 0):
        return "falls at every step"
    if np.all(diffs > 0):
        return "rises at every step"
    return "does not move in one direction"


def _series(points: list[tuple[int, float]], fmt: str) -> str:
    return ", ".join(f"{v:{fmt}} (K={k})" for k, v in points)


@shared_doc
def k_story(results, measure: str | None = None) -> list[str]:
    """Sentences, one per finding, from the means over seeds per K (see the module docstring).

    Parameters
    ----------
    %(report_results)s
    measure : str or None, default None
        The coherence measure (None: the first stored).

    Returns
    -------
    list of str
        The findings: the perplexity trend, the coherence peak, the library's
        perplexity (when stored) and the least coherent topic with its flags.
    """
    from tealeaves.report.figures import coherence_measures

    out = []
    completion = _means(results, "completion_perplexity")
    out.append(f"Document-completion perplexity {_trend(completion)} as K grows: "
               f"{_series(completion, '.0f')}.")
    measure = measure or coherence_measures(results)[0]
    coh = _means(results, measure)
    peak = max(coh, key=lambda p: p[1])
    where = "at the smallest K" if peak[0] == coh[0][0] else "at the largest K" if peak[0] == coh[-1][0] \
        else "in between, then falls"
    out.append(f"Mean {measure} peaks at K={peak[0]} ({peak[1]:.3f}), {where}: {_series(coh, '.3f')}.")
    library = _means(results, "library_perplexity")
    if library:
        way = "the other way from" if _trend(library) != _trend(completion) else "the same way as"
        out.append(f"The library's own reported perplexity (scikit-learn's variational bound) "
                   f"{_trend(library)}: {_series(library, '.0f')}; it points {way} document completion.")
    topics = results.topics.dropna(subset=[measure])
    worst = topics.sort_values([measure, "model", "topic"]).iloc[0]
    flags = hooks.topic_flags(results).get((worst["model"], int(worst["topic"])), [])
    flagged = f"flagged {', '.join(flags)}" if flags else "not flagged"
    if flags and "flag_explanations" in worst and worst["flag_explanations"]:
        flagged += f": {worst['flag_explanations']}"
    out.append(f"The least coherent topic is topic {int(worst['topic'])} of {worst['model']} "
               f"({measure} {worst[measure]:.3f}: {' '.join(worst['top_words'][:8])}; {flagged}).")
    return out
