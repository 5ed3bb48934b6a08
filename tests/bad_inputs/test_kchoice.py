"""Bad inputs of the K-choice measures (tealeaves.comparison.kchoice): one topic, fewer words than
topics, topics without mass, mismatched theta, models without probabilities or a sampler trace,
unknown settings -- each a clean error of a documented class, or a documented value."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import tealeaves
from tealeaves.comparison import (
    arun2010,
    cao_juan2009,
    deveaud2014,
    exclusivity,
    frex_scores,
    griffiths2004,
    top_topics,
)
from tealeaves.errors import InvalidModelError, ParameterError, UnsupportedModelError
from tealeaves.models.adapters.arrays import from_arrays

TWO = from_arrays(np.array([[0.5, 0.3, 0.2], [0.1, 0.2, 0.7]]), vocabulary=["a", "b", "c"])
ONE = from_arrays(np.array([[0.5, 0.3, 0.2]]), vocabulary=["a", "b", "c"])


@pytest.mark.parametrize("measure", [cao_juan2009, lambda m: deveaud2014(m, 2), exclusivity, frex_scores,
                                     lambda m: arun2010(m, [[1.0]], [3])])
def test_kchoice_one_topic_refused(measure):
    with pytest.raises(ParameterError, match="at least 2 topics"):
        measure(ONE)


def test_kchoice_arun_more_topics_than_words_refused():
    model = from_arrays(np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]), vocabulary=["a", "b"])
    with pytest.raises(ParameterError, match="only 2 words"):
        arun2010(model, np.full((2, 3), 1 / 3), [1, 1])


def test_kchoice_arun_theta_of_other_shape_refused():
    with pytest.raises(InvalidModelError):
        arun2010(TWO, np.full((2, 3), 1 / 3), [1, 1])  # three topics in theta, two in the model
    with pytest.raises(InvalidModelError, match="doc_lengths has shape"):
        arun2010(TWO, [[0.5, 0.5]], [1, 2])


def test_kchoice_arun_empty_topic_refused():
    # topic 1 has no mass in any document: the divergence would divide by zero
    with pytest.raises(InvalidModelError, match="no mass"):
        arun2010(TWO, [[1.0, 0.0], [1.0, 0.0]], [3, 4])


def test_kchoice_arun_documents_without_tokens_refused():
    with pytest.raises(InvalidModelError, match="all zero"):
        arun2010(TWO, [[0.5, 0.5]], [0])


def test_kchoice_arun_identical_topics_documented_infinity():
    model = from_arrays(np.array([[0.5, 0.5], [0.5, 0.5]]), vocabulary=["a", "b"])
    assert arun2010(model, [[0.5, 0.5]], [2]).value == math.inf


def test_kchoice_model_without_probabilities_refused():
    weights_only = from_arrays(np.array([[2.0, 1.0, 0.5], [0.1, 0.2, 0.3]]), vocabulary=["a", "b", "c"],
                           probabilistic=False)
    for measure in (cao_juan2009, deveaud2014, exclusivity):
        with pytest.raises(InvalidModelError, match="no topic-word probabilities"):
            measure(weights_only)


def test_kchoice_deveaud_settings_refused():
    with pytest.raises(ParameterError, match="larger than the vocabulary"):
        deveaud2014(TWO, n_top=4)
    with pytest.raises(ParameterError, match="compat"):
        deveaud2014(TWO, compat="tmtoolkit")


def test_kchoice_griffiths_without_trace_refused():
    with pytest.raises(UnsupportedModelError, match="no log-likelihood trace"):
        griffiths2004(TWO)
    with pytest.raises(ParameterError, match="exactly one"):
        griffiths2004()
    with pytest.raises(ParameterError, match="finite"):
        griffiths2004(log_likelihoods=[-1.0, float("nan")])
    with pytest.raises(ParameterError, match="finite"):
        griffiths2004(log_likelihoods=[])


def test_kchoice_griffiths_burn_in_past_the_trace_refused():
    class Trace:
        log_likelihood_trace_ = [-10.0, -9.0]
        log_likelihood_iterations_ = [10, 20]

    with pytest.raises(ParameterError, match="drops every recorded"):
        griffiths2004(Trace(), burn_in=20)
    with pytest.raises(ParameterError, match="burn_in must be a whole number >= 0"):
        griffiths2004(Trace(), burn_in=-1)


def test_kchoice_exclusivity_settings_refused():
    with pytest.raises(ParameterError, match="weight"):
        exclusivity(TWO, weight=1.5)
    with pytest.raises(ParameterError, match="larger than the vocabulary"):
        exclusivity(TWO, n_top=5)


def test_kchoice_word_no_topic_uses_has_exclusivity_zero_documented():
    model = from_arrays(np.array([[0.5, 0.5, 0.0], [0.2, 0.8, 0.0]]), vocabulary=["a", "b", "c"])
    scores = frex_scores(model, 1.0)  # pure exclusivity: the unused word ranks last in both topics
    assert np.isfinite(scores).all()
    assert scores[:, 2] == pytest.approx([1 / 3, 1 / 3])


def test_kchoice_top_topics_unknown_measure_refused():
    from tealeaves.errors import TealeavesError

    with pytest.raises(TealeavesError):
        top_topics(TWO, [["a", "b"]], measure="no-such-measure")


def _store_with(tmp_path, run_cli, models: dict) -> Path:
    """``tealeaves evaluate`` of saved array models over :data:`DOCS` into a store, then its report."""
    from conftest import DOCS

    (tmp_path / "train.txt").write_text("\n".join(DOCS[:24]) + "\n", encoding="utf-8")
    (tmp_path / "test.txt").write_text("\n".join(DOCS[24:]) + "\n", encoding="utf-8")
    names = []
    for name, (phi, words) in models.items():
        tealeaves.load_model(np.array(phi), vocabulary=words, alpha=0.5).save(tmp_path / f"{name}.npz")
        names.append(f"{name}={tmp_path / (name + '.npz')}")
    store = tmp_path / "store.sqlite"
    done = run_cli(["evaluate", tmp_path / "train.txt", *names, "--test", tmp_path / "test.txt", "-o", store])
    assert done.code == 0, done.err
    done = run_cli(["report", store, "-o", tmp_path / "report.html"])
    assert done.code == 0, done.err
    return store


WORDS = sorted({"cat", "dog", "mat", "rug", "sun", "moon", "star", "sky"})


def test_kchoice_store_one_topic_model_has_reasons_not_values(tmp_path, run_cli):
    from tealeaves.sweep import load_results

    store = _store_with(tmp_path, run_cli, {"one": ([[1 / 8] * 8], WORDS)})
    row = load_results(store).models.iloc[0]
    for column in ("arun2010", "cao_juan2009", "deveaud2014", "griffiths2004", "exclusivity", "frex"):
        assert row[column] is None or np.isnan(row[column])
        assert row["unavailable"][column]
    assert "one topic" in row["unavailable"]["cao_juan2009"]
    assert "kchoice-missing" in (tmp_path / "report.html").read_text(encoding="utf-8")


def test_kchoice_store_models_over_different_vocabularies_are_separate_lines(tmp_path, run_cli):
    from tealeaves.report.figures import kchoice_table
    from tealeaves.sweep import load_results

    rng = np.random.default_rng(3)
    small = ["cat", "dog", "mat", "sun", "moon"]
    store = _store_with(tmp_path, run_cli, {"wide": (rng.dirichlet(np.ones(8), 2).tolist(), WORDS),
                                            "narrow": (rng.dirichlet(np.ones(5), 3).tolist(), small)})
    results = load_results(store)
    table = kchoice_table(results)
    cao = table[table["measure"] == "cao_juan2009"]
    assert len(cao) == 2 and cao["vocabulary"].nunique() == 2  # never one mean over both vocabularies
    for _, line in cao.iterrows():
        stored = results.models.loc[results.models["vocabulary_hash"] == line["vocabulary"], "cao_juan2009"]
        assert line["mean"] == float(stored.iloc[0])
        assert line["scaled"] == 0.5  # one K per line: scales::rescale of a single value
