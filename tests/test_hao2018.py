"""``tealeaves reproduce hao2018 --figure N --quick`` (reduced size in CI; full with TEALEAVES_FULL=1):
the shapes of Hao et al. (2018)'s Figures 6, 7, 8 and 10, and the table values recomputed
independently where they are cheap to recompute."""

from __future__ import annotations

import json

import pytest
from scipy.stats import pearsonr

from conftest import FULL, require_data

pytestmark = pytest.mark.xdist_group("hao2018")


@pytest.fixture(scope="module")
def data():
    require_data("bible/ebible/vref.txt")
    require_data("parallel/flores200/docs/eng_Latn.jsonl")
    require_data("dictionaries/wiktionary/sv-en.all")


def _run(figure, tmp_path, run_cli):
    args = ["reproduce", "hao2018", "--figure", str(figure), "--format", "json", "--figures", str(tmp_path)]
    r = run_cli(args if FULL else [*args, "--quick"])
    assert r.code == 0, r.err
    png = tmp_path / f"hao2018_fig{figure}.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return json.loads(r.out)


def _by_lang(rows):
    out = {}
    for r in rows:
        out.setdefault(r["lang"], []).append(r)
    return out


@pytest.mark.slow
def test_figure6_cnpmi_falls_with_cardinality_while_mta_does_not(data, tmp_path, run_cli):
    result = _run(6, tmp_path, run_cli)
    for lang, rows in _by_lang(result["rows"]).items():
        assert [r["C"] for r in rows] == [10, 20, 30, 40, 50]
        cn = [r["cnpmi_rich"] for r in rows]
        assert all(a > b for a, b in zip(cn, cn[1:], strict=False)), (lang, cn)  # falls at every step
        words = [r["mta_words"] for r in rows]
        assert words[-1] >= words[0] - 0.02, (lang, words)  # flat or rising, the paper's point
        assert cn[0] - cn[-1] > 0.1


@pytest.mark.slow
def test_figure7_cnpmi_rises_with_links(data, tmp_path, run_cli):
    result = _run(7, tmp_path, run_cli)
    for lang, rows in _by_lang(result["rows"]).items():
        links = [r["link_fraction"] for r in rows]
        assert links[0] == 0.0 and links[-1] == 1.0
        assert rows[-1]["cnpmi_rich"] > rows[0]["cnpmi_rich"] + 0.02, (lang, rows)
        assert rows[-1]["cnpmi_bible"] > rows[0]["cnpmi_bible"], (lang, rows)


def _means_by_link(models):
    out = {}
    for m in models:
        out.setdefault(m["link_fraction"], []).append(m)
    return {k: {c: sum(m[c] for m in ms) / len(ms) for c in ("macro_f1", "cnpmi_rich", "cnpmi_bible")}
            for k, ms in sorted(out.items())}


@pytest.mark.slow
def test_figure8_correlations_are_pearson_of_section_6_1_models(data, tmp_path, run_cli):
    from tealeaves.reproduce.hao2018 import Config, nonflores_texts

    result = _run(8, tmp_path, run_cli)
    config = Config() if FULL else Config.quick()
    models = _by_lang(result["models"])
    for row in result["rows"]:
        ms = models[row["lang"]]
        # Section 6.1's models: one K, every link fraction x seed
        assert [(m["K"], m["link_fraction"], m["seed"]) for m in ms] == config.figure8_settings()
        assert row["models"] == len(ms) >= 3
        assert row["n_rich_units"] == len(nonflores_texts(row["lang"], "sentence").ids) > 2000
        f1 = [m["macro_f1"] for m in ms]
        assert row["r_bible"] == pytest.approx(pearsonr(f1, [m["cnpmi_bible"] for m in ms])[0])
        assert row["r_rich"] == pytest.approx(pearsonr(f1, [m["cnpmi_rich"] for m in ms])[0])
        assert row["r_rich_bible"] == pytest.approx(pearsonr([m["cnpmi_rich"] for m in ms],
                                                             [m["cnpmi_bible"] for m in ms])[0])
        # the shapes: linking raises F1 and rich CNPMI, and both CNPMI agree with classification
        by_link = _means_by_link(ms)
        assert by_link[1.0]["macro_f1"] > by_link[0.0]["macro_f1"] + 0.05, (row["lang"], by_link)
        assert by_link[1.0]["cnpmi_rich"] > by_link[0.0]["cnpmi_rich"], (row["lang"], by_link)
        assert row["r_bible"] > 0 and row["r_rich"] > 0, row


@pytest.mark.slow
def test_table4_estimator_column_is_the_held_out_estimators_model_means(data):
    """Two languages: each one's models are scored by an estimator trained on the other's topics."""
    from dataclasses import replace

    from tealeaves.multilingual.estimator import CoherenceEstimator
    from tealeaves.reproduce.hao2018 import Config, run

    result = run(8, replace(Config.quick(), languages=("sv", "ro")))
    table = result["features"]
    assert len(table) == sum(m["K"] for m in result["models"])  # one row per topic of every model
    for row in result["rows"]:
        test, train = table[table["lang"] == row["lang"]], table[table["lang"] != row["lang"]]
        est = CoherenceEstimator(n_estimators=50, random_state=0).fit(train, train["target"].to_numpy(),
                                                                       train["lang"].to_numpy())
        pred = est.predict(test)
        ms = [(i, m) for i, m in enumerate(result["models"]) if m["lang"] == row["lang"]]
        for i, m in ms:
            assert m["estimate"] == pytest.approx(pred[test["model"].to_numpy() == i].mean(), abs=1e-12)
        f1, est_means = [m["macro_f1"] for _, m in ms], [m["estimate"] for _, m in ms]
        assert row["r_estimator"] == pytest.approx(pearsonr(f1, est_means)[0])
        rich = [m["cnpmi_rich"] for _, m in ms]
        assert row["r_rich_estimator"] == pytest.approx(pearsonr(rich, est_means)[0])


def test_bad_figure_is_a_usage_error(cli_error):
    cli_error(["reproduce", "hao2018", "--figure", "9"], "invalid choice", code=2)
