"""Dictionaries, word era, meaning drift and the coherence estimator."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from sklearn.ensemble import AdaBoostRegressor
from sklearn.linear_model import LinearRegression

from conftest import require_data
from tealeaves.corpus import Corpus
from tealeaves.errors import EmptyInputError, TealeavesError
from tealeaves.multilingual.dictionaries import merge, read_dictionary, read_muse, read_wiktionary
from tealeaves.multilingual.drift import MeaningDrift
from tealeaves.multilingual.era import MODERN_YEAR, read_spelleng
from tealeaves.multilingual.estimator import FEATURE_GROUPS, CoherenceEstimator, pearson


def test_muse_and_wiktionary_formats(tmp_path):
    muse = tmp_path / "en-ro.txt"
    muse.write_text("dog câine\ncat\tpisică\nbroken line here\n\n", encoding="utf-8")
    wik = tmp_path / "ro-en.all"
    wik.write_text("câine\tdog\ncasă\thouse\nfrumos\tvery nice\n", encoding="utf-8")
    m = read_muse(muse)
    assert (m.source, m.target, m.n_skipped) == ("en", "ro", 1)
    assert m.pairs == {("dog", "câine"), ("cat", "pisică")}
    w = read_dictionary(wik)  # .all -> Wiktionary, foreign first
    assert (w.source, w.target) == ("en", "ro")
    assert w.pairs == {("dog", "câine"), ("house", "casă")} and w.n_skipped == 1
    both = merge([m, w])
    assert len(both) == 3 and both.is_translation("House", "casă")
    empty = tmp_path / "en-sv.txt"
    empty.write_text("one_field_only\n", encoding="utf-8")
    with pytest.raises(EmptyInputError, match="no translation pairs"):
        read_muse(empty)


def test_real_dictionaries_load():
    w = read_wiktionary(require_data("dictionaries/wiktionary/am-en.all"))
    assert w.target == "am" and 900 < len(w) <= 992
    m = read_muse(require_data("dictionaries/muse/en-zh.txt"))
    assert m.target == "zh" and m.is_translation("and", "和")


def test_word_era_rule(tmp_path):
    tsv = tmp_path / "first.tsv"
    tsv.write_text(
        "lemma\theadword\tpos\toed_first_band\toed_first_band_years\toed_first_band_start\t"
        "oed_first_period\tcorpus_first_band\tcorpus_first_band_start\n"
        "web_n\tweb\tnn\t2\t950-1049\t950\tOE III\t2\t950\n"
        "web_v\tweb\tvb\t9\t1570-1639\t1570\tEModE II\t2\t950\n"
        "access_v1\taccess\tvb\t\t\t\t\t8\t1500\n", encoding="utf-8")
    era = read_spelleng(tsv)
    assert era.year("Web") == 950 and era.year("access") == 1500 and era.year("internet") == MODERN_YEAR
    mean, std, missing = era.features(["web", "access", "internet"])
    assert mean == pytest.approx((950 + 1500 + 1950) / 3)
    assert std == pytest.approx(np.std([950, 1500, 1950]))
    assert missing == 1
    real = read_spelleng(require_data("word-era/spelleng/spelleng_first_band.tsv"))
    assert real.year("web") == 950 and real.year("computer") == MODERN_YEAR


def _brute_context(docs, word, shared, window):
    vec = dict.fromkeys(shared, 0)
    for doc in docs:
        for i, tok in enumerate(doc):
            if tok != word:
                continue
            for j in range(max(0, i - window), min(len(doc), i + window + 1)):
                if j != i and doc[j] in vec:
                    vec[doc[j]] += 1
    return np.array([vec[w] for w in shared], dtype=float)


def test_drift_cosine_matches_brute_force():
    poor = [["they", "weave", "the", "spider", "web", "and", "hatch", "eggs"], ["web", "of", "the", "spider"]]
    rich = [["the", "web", "browser", "shows", "the", "page"], ["spider", "web", "silk", "and", "eggs"],
            ["internet", "page"]]
    drift = MeaningDrift(window=2).fit(Corpus.from_token_lists(poor), Corpus.from_token_lists(rich))
    shared = sorted(set(w for d in poor for w in d) & set(w for d in rich for w in d))
    for word in ("web", "spider", "the"):
        a, b = _brute_context(poor, word, shared, 2), _brute_context(rich, word, shared, 2)
        expected = a @ b / (np.linalg.norm(a) * np.linalg.norm(b))
        assert drift.similarity([word])[0] == pytest.approx(expected)
    mean, std, missing = drift.features(["web", "internet", "zzz"])
    assert missing == 2  # internet: only in rich; zzz: nowhere -> documented value 0.0
    sim_web = drift.similarity(["web"])[0]
    assert mean == pytest.approx(sim_web / 3) and std == pytest.approx(np.std([sim_web, 0, 0]))


def _synthetic(n_per_group=40, seed=0):
    rng = np.random.default_rng(seed)
    cols = [c for g in FEATURE_GROUPS.values() for c in g]
    X = pd.DataFrame(rng.normal(size=(4 * n_per_group, len(cols))), columns=cols)
    y = 0.5 * X["cnpmi"] - 0.8 * X["era_mean"] + 0.1 * rng.normal(size=len(X))
    groups = np.repeat(["ro", "sv", "tr", "zh"], n_per_group)
    return X, y.to_numpy(), groups


def test_estimator_equals_adaboost_with_the_selected_parameters():
    X, y, groups = _synthetic()
    grid = {"learning_rate": [0.1, 1.0], "loss": ["linear", "square"]}
    est = CoherenceEstimator(features=("base", "era"), param_grid=grid, n_estimators=20,
                             random_state=3).fit(X, y, groups)
    assert est.best_params_["learning_rate"] in grid["learning_rate"]
    assert est.best_params_["loss"] in grid["loss"]
    cols = list(FEATURE_GROUPS["base"] + FEATURE_GROUPS["era"])
    direct = AdaBoostRegressor(estimator=LinearRegression(), n_estimators=20, random_state=3,
                               **est.best_params_).fit(X[cols].to_numpy(), y)
    np.testing.assert_allclose(est.predict(X), direct.predict(X[cols].to_numpy()))
    # the era group carries signal the base group lacks
    base_only = CoherenceEstimator(features=("base",), param_grid=grid, n_estimators=20).fit(X, y, groups)
    assert pearson(est.predict(X), y) > pearson(base_only.predict(X), y) + 0.3


def test_estimator_bad_input():
    X, y, groups = _synthetic(5)
    with pytest.raises(TealeavesError, match="unknown feature groups"):
        CoherenceEstimator(features=("base", "vibes")).fit(X, y, groups)
    with pytest.raises(TealeavesError, match="missing"):
        CoherenceEstimator().fit(X.drop(columns=["drift_std"]), y, groups)
    bad = X.copy()
    bad.loc[0, "icc"] = math.inf
    with pytest.raises(TealeavesError, match="icc"):
        CoherenceEstimator().fit(bad, y, groups)
    with pytest.raises(TealeavesError, match="not fitted"):
        CoherenceEstimator().predict(X)


def test_pearson_documented_value_for_constant_input():
    assert pearson([1, 1, 1], [1, 2, 3]) == 0.0
    assert pearson([1, 2, 3], [2, 4, 7]) == pytest.approx(np.corrcoef([1, 2, 3], [2, 4, 7])[0, 1])
