"""The report's verdict: sentences computed from a store's numbers, checked on hand-made sweeps whose
answer is known and on a small real store (numbers recomputed from ``load_results``)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tealeaves.report import hooks
from tealeaves.report.verdict import interval, verdict
from tealeaves.sweep import SweepResults, load_results, sweep
from test_sweep_runs import lda_corpus

KS = (5, 10, 20, 40, 80)


def _made(completion, library, npmi, seeds=3, jitter=0.01) -> SweepResults:
    """A hand-made sweep: per K the given centre of each measure, seeds spread around it."""
    rows, topics = [], []
    for k, cp, lp, c in zip(KS, completion, library, npmi):
        for s in range(seeds):
            d = (s - (seeds - 1) / 2) * jitter
            rows.append({"name": f"sklearn-K{k}-s{s}", "engine": "sklearn", "k": k, "seed": s,
                         "completion_perplexity": cp * (1 + d), "library_perplexity": lp * (1 + d),
                         "unigram_perplexity": 2200.0, "npmi": c + d})
            topics += [{"model": f"sklearn-K{k}-s{s}", "k": k, "seed": s, "topic": t, "top_words": ["w"],
                        "npmi": c, "flags": [], "flag_explanations": ""} for t in range(k)]
    return SweepResults("hand-made", {"measures": ["npmi"]}, pd.DataFrame(rows), pd.DataFrame(topics))


@pytest.fixture
def no_stability(monkeypatch):
    monkeypatch.setattr(hooks, "STABILITY", None)
    monkeypatch.setattr(hooks, "FLAGS", None)


def _sentences(v, kind, question="Which K?"):
    return [s for s in v.questions[question] if s.kind == kind]


def test_verdict_interval_is_the_student_t_interval():
    x = [1.0, 2.5, 2.0, 4.0]
    got = interval(x, 0.9)
    low, high = stats.t.interval(0.9, len(x) - 1, loc=np.mean(x), scale=stats.sem(x))
    assert got["mean"] == pytest.approx(np.mean(x)) and got["n"] == 4
    assert (got["low"], got["high"]) == (pytest.approx(low), pytest.approx(high))
    assert interval([3.0]) == {"mean": 3.0, "low": None, "high": None, "n": 1}
    assert interval([]) == {"mean": None, "low": None, "high": None, "n": 0}


def test_verdict_on_a_sweep_whose_coherence_peaks_at_20(no_stability):
    results = _made([1600, 1400, 1250, 1150, 1100], [2100, 2300, 2500, 2900, 4300],
                    [0.10, 0.15, 0.22, 0.18, 0.12])
    v = verdict(results)
    (held,) = _sentences(v, "heldout")
    assert "improves (falls) at every K tried" in held.text and "the largest K, 80, is best" in held.text
    runs5 = [1600 * (1 + d) for d in (-0.01, 0, 0.01)]
    mean5 = np.mean(runs5)
    low5, high5 = stats.t.interval(0.95, 2, loc=mean5, scale=stats.sem(runs5))
    assert f"K=5: {mean5:,.0f} [{low5:,.0f}, {high5:,.0f}]" in held.text
    assert held.numbers["sklearn-K5"]["mean"] == pytest.approx(mean5)
    assert "5 of 5 beat the unigram baseline (2,200)" in held.text
    (coh,) = _sentences(v, "coherence")
    assert coh.text.startswith("Coherence: mean npmi over topics (higher is better) peaks at K=20, 0.220 [")
    assert "at a middle K and is lower on both sides" in coh.text
    (lib,) = _sentences(v, "library")
    assert "rises at every K tried" in lib.text and "points the other way" in lib.text
    assert "favours K=5, where held-out prediction favours K=80" in lib.text
    (dis,) = _sentences(v, "disagreement")
    assert dis.text.startswith("The measures disagree") and "coherence (npmi) favours K=20" in dis.text
    assert held.figure == "fig-perplexity-vs-k" and coh.figure == "fig-measures-vs-k"
    assert v.questions["Which model?"][0].text.startswith("Every model comes from one engine (sklearn)")


def test_verdict_says_where_coherence_rises_and_when_measures_agree(no_stability):
    results = _made([1600, 1400, 1250, 1150, 1100], [4300, 2900, 2500, 2300, 2100],
                    [0.10, 0.12, 0.14, 0.16, 0.18], jitter=0.002)
    v = verdict(results)
    (coh,) = _sentences(v, "coherence")
    assert "peaks at K=80" in coh.text and "at the largest K tried" in coh.text
    assert "No other interval reaches the peak's." in coh.text
    (lib,) = _sentences(v, "library")
    assert "agrees with document completion" in lib.text
    (dis,) = _sentences(v, "disagreement")
    # the junk share is equal (0) everywhere, so it favours the first K: the measures do not all agree
    assert "held-out prediction favours K=80" in dis.text


def test_verdict_overlapping_intervals_are_reported(no_stability):
    results = _made([1600, 1400, 1250, 1150, 1100], [1, 1, 1, 1, 1], [0.10, 0.20, 0.205, 0.15, 0.12],
                    jitter=0.01)
    (coh,) = _sentences(verdict(results), "coherence")
    assert "peaks at K=20" in coh.text and "overlaps that of K=10, so the runs" in coh.text


def test_verdict_one_run_has_no_interval(no_stability):
    results = _made([1600, 1400, 1250, 1150, 1100], [1, 1, 1, 1, 1], [0.1, 0.2, 0.3, 0.2, 0.1], seeds=1)
    (held,) = _sentences(verdict(results), "heldout")
    assert "K=5: 1,600;" in held.text and "one run each, so no interval" in held.text


def test_verdict_stability_sentence_cites_the_stability_table(monkeypatch):
    table = pd.DataFrame({"config": [f"sklearn-K{k}" for k in KS], "engine": "sklearn", "k": list(KS),
                          "n_runs": 3, "mean_similarity": [0.9, 0.8, 0.7, 0.6, 0.5],
                          "low": [0.85, 0.75, 0.65, 0.55, 0.45], "high": [0.95, 0.85, 0.75, 0.65, 0.55]})
    monkeypatch.setattr(hooks, "STABILITY", lambda results: table)
    monkeypatch.setattr(hooks, "FLAGS", None)
    results = _made([1600, 1400, 1250, 1150, 1100], [1, 1, 1, 1, 1], [0.1, 0.2, 0.3, 0.2, 0.1])
    (stab,) = _sentences(verdict(results), "stability")
    assert "most for K=5 and least for K=80" in stab.text
    assert "K=20: 0.70 (pairs 0.65-0.75, 3 runs)" in stab.text


def test_verdict_which_model_ranks_configurations_of_several_engines(no_stability):
    results = _made([1600, 1400, 1250, 1150, 1100], [1, 1, 1, 1, 1], [0.1, 0.2, 0.3, 0.2, 0.1])
    other = results.models.assign(engine="gibbs", name=lambda f: f["name"].str.replace("sklearn", "gibbs"),
                                  completion_perplexity=lambda f: f["completion_perplexity"] - 50)
    results.models = pd.concat([results.models, other], ignore_index=True)
    results.topics = pd.concat([results.topics, results.topics.assign(
        model=lambda f: f["model"].str.replace("sklearn", "gibbs"))], ignore_index=True)
    v = verdict(results)
    assert set(v.questions) == {"Which K? (gibbs)", "Which K? (sklearn)", "Which model?"}
    (held,) = _sentences(v, "heldout", "Which model?")
    assert "is lowest (best) for gibbs-K80" in held.text


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("verdict") / "r.sqlite"
    sweep(lda_corpus(), [2, 3, 5], seeds=3, output=path, measures=["npmi"], progress=False)
    return path


def test_verdict_on_a_real_store_cites_the_stored_means(store):
    results = load_results(store)
    v = verdict(results)
    (held,) = _sentences(v, "heldout")
    (coh,) = _sentences(v, "coherence")
    for k, rows in results.models.groupby("k"):
        expected = interval(rows["completion_perplexity"].tolist())
        assert held.numbers[f"sklearn-K{k}"]["mean"] == pytest.approx(rows["completion_perplexity"].mean())
        cited = f"K={k}: {expected['mean']:,.0f} [{expected['low']:,.0f}, {expected['high']:,.0f}]"
        assert cited in held.text
        assert coh.numbers[f"sklearn-K{k}"]["mean"] == pytest.approx(rows["npmi"].mean())
    peak = int(results.models.groupby("k")["npmi"].mean().idxmax())
    assert re.search(rf"peaks at K={peak}, ", coh.text)
    (junk,) = _sentences(v, "junk")
    flags = hooks.topic_flag_details(results)
    for k in (2, 3, 5):
        flagged = sum(1 for (m, _t) in flags if m.startswith(f"sklearn-K{k}-"))
        assert junk.numbers[f"sklearn-K{k}"]["flagged"] == flagged
        assert f"K={k}: {flagged / 3:.1f} of {k} per run ({flagged / (3 * k):.0%})" in junk.text


def test_recurrence_flags_follow_the_rule_on_a_real_store(store):
    from tealeaves.comparison import topic_stability

    results = load_results(store)
    flags = hooks.recurrence_flags(results)
    expected = set()
    for k in (2, 3, 5):
        names = [f"sklearn-K{k}-s{s}" for s in range(3)]
        topics = topic_stability([results.topic_model(n) for n in names], "js").topics
        q1, q3 = np.percentile(topics["mean_similarity"], [25, 75])
        low = topics[(topics["recurrence"] < 0.5) & (topics["mean_similarity"] < q1 - 1.5 * (q3 - q1))]
        expected |= {(names[r], t) for r, t in zip(low["run"], low["topic"])}
    assert set(flags) == expected
    for details in flags.values():
        assert [d["flag"] for d in details] == ["low-recurrence"]
        assert "of the 2 other runs" in details[0]["explanation"]
        assert "lower fence" in details[0]["explanation"]
    # every flag the report shows, stored or not, carries an explanation
    assert all(d["explanation"] for ds in hooks.topic_flag_details(results).values() for d in ds)


def test_verdict_with_one_configuration_says_there_is_nothing_to_choose(no_stability):
    results = _made([1600, 1400, 1250, 1150, 1100], [1, 1, 1, 1, 1], [0.1, 0.2, 0.3, 0.2, 0.1])
    results.models = results.models[results.models["k"] == 20].reset_index(drop=True)
    v = verdict(results)
    assert list(v.questions) == ["Which model?"]
    assert v.questions["Which model?"][0].text.startswith("The store holds one configuration (sklearn-K20)")
