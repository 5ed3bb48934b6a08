"""Comparing measures against people: Williams' t, paired differences, --by groups, model-level results."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from tealeaves.human.comparison import compare_measures, model_level, williams_t
from tealeaves.human.correlation import CorrelationError, correlate


def test_williams_t_reproduces_howell():
    """Howell, *Statistical Methods for Psychology* (6th ed., p. 262), as worked in Bruce Weaver's SPSS
    syntax Williams1959.sps (CBU statistics wiki, FAQ/Will): r12 = .80, r13 = .72, r23 = .89, n = 26
    gives t = 1.361, df = 23, p = .187 (Williams 1959; Steiger 1980 eq. 7)."""
    out = williams_t(0.80, 0.72, 0.89, 26)
    assert round(out["t"], 3) == 1.361
    assert out["df"] == 23
    assert round(out["p_value"], 3) == 0.187
    assert williams_t(0.72, 0.80, 0.89, 26)["t"] == pytest.approx(-out["t"])
    with pytest.raises(CorrelationError, match="at least 4"):
        williams_t(0.5, 0.4, 0.3, 3)


def tables(rng, n=40):
    human = rng.normal(size=n)
    a = human + rng.normal(scale=0.7, size=n)
    b = human + rng.normal(scale=1.5, size=n)
    keys = [f"t{i}" for i in range(n)]
    return dict(zip(keys, human)), dict(zip(keys, a)), dict(zip(keys, b))


def test_compare_measures_paired_bootstrap_test_and_dropped_topics():
    h, a, b = tables(np.random.default_rng(1))
    del a["t3"], b["t5"], b["t6"]
    out = compare_measures(h, a, b, names=("npmi", "umass"), n_boot=400, seed=2)
    keys = [k for k in sorted(h, key=lambda s: (len(s), s)) if k in a and k in b]
    assert out["n_topics"] == len(keys) == 37
    assert out["dropped"] == {"missing_first": 1, "missing_second": 2}
    x, ya, yb = (np.array([d[k] for k in keys]) for d in (h, a, b))
    r1, r2, r23 = stats.pearsonr(x, ya)[0], stats.pearsonr(x, yb)[0], stats.pearsonr(ya, yb)[0]
    assert out["npmi"] == pytest.approx(r1) and out["difference"] == pytest.approx(r1 - r2)
    assert out["williams_t"] == pytest.approx(williams_t(r1, r2, r23, 37))
    idx = np.random.default_rng(2).integers(0, 37, (400, 37))
    diffs = [stats.pearsonr(x[i], ya[i])[0] - stats.pearsonr(x[i], yb[i])[0] for i in idx]
    assert (out["ci"]["low"], out["ci"]["high"]) == pytest.approx(tuple(np.quantile(diffs, [0.025, 0.975])))
    ranks = compare_measures(h, a, b, method="spearman", n_boot=50)
    assert ranks["first"] == pytest.approx(stats.spearmanr(x, ya)[0])
    assert "williams_t" not in compare_measures(h, a, b, method="kendall", n_boot=50)


def grouped(tmp_path, rng):
    """A scores JSON with composite topic ids and a measures CSV with separate key columns."""
    topics = [f"{d}/{m}/{k}" for d in ("nyt", "wiki") for m in ("lda", "etm", "ctm") for k in range(6)]
    scores = {
        "topics": [{"topic": t, "mean_rating": float(rng.random() * 2 + 1)} for t in topics],
        "topic_key": ["dataset", "model", "topic"],
        "key_sep": "/",
    }
    (tmp_path / "scores.json").write_text(json.dumps(scores))
    rows = [
        dict(zip(("dataset", "model", "topic"), t.split("/")), npmi=rng.normal(), heldout=rng.normal())
        for t in topics
    ]
    rows[4]["npmi"] = ""  # a missing measure value
    pd.DataFrame(rows).to_csv(tmp_path / "m.csv", index=False)
    return scores, pd.DataFrame(rows)


def test_by_equals_splitting_the_files_by_hand(tmp_path, run_cli):
    scores, measures = grouped(tmp_path, np.random.default_rng(4))
    res = run_cli(
        [
            "human",
            "correlate",
            tmp_path / "scores.json",
            "--measures",
            tmp_path / "m.csv",
            "--measure",
            "npmi",
            "--by",
            "dataset,model",
            "--n-boot",
            "300",
            "--format",
            "json",
        ]
    )
    assert res.code == 0, res.err
    out = json.loads(res.out)
    assert out[0]["group"] == "pooled" and out[0]["n_topics"] == 35
    assert len(out) == 1 + 6
    for entry in out[1:]:
        d, m = entry["group"]["dataset"], entry["group"]["model"]
        part = tmp_path / f"{d}-{m}"
        part.mkdir()
        sub = {"topics": [r for r in scores["topics"] if r["topic"].startswith(f"{d}/{m}/")]}
        (part / "s.json").write_text(json.dumps(sub))
        rows = measures[(measures["dataset"] == d) & (measures["model"] == m)].copy()
        rows["topic"] = d + "/" + m + "/" + rows["topic"].astype(str)
        rows[["topic", "npmi"]].to_csv(part / "m.csv", index=False)
        alone = run_cli(
            [
                "human",
                "correlate",
                part / "s.json",
                "--measures",
                part / "m.csv",
                "--measure",
                "npmi",
                "--n-boot",
                "300",
                "--format",
                "json",
            ]
        )
        single = json.loads(alone.out)[0]
        for key in ("n_topics", "pearson", "spearman", "kendall", "signature"):
            assert entry[key] == single[key], (d, m, key)
    table = run_cli(
        [
            "human",
            "correlate",
            tmp_path / "scores.json",
            "--measures",
            tmp_path / "m.csv",
            "--measure",
            "npmi",
            "--by",
            "model",
            "--n-boot",
            "50",
        ]
    )
    assert table.code == 0 and "model=lda" in table.out and "pooled" in table.out


def test_model_level_means_intervals_and_plot(tmp_path, run_cli):
    scores, measures = grouped(tmp_path, np.random.default_rng(6))
    res = run_cli(
        [
            "human",
            "models",
            tmp_path / "scores.json",
            "--measures",
            tmp_path / "m.csv",
            "--measure",
            "heldout",
            "--plot",
            tmp_path / "models.png",
            "--format",
            "json",
            "--n-boot",
            "200",
        ]
    )
    assert res.code == 0, res.err
    out = json.loads(res.out)
    frame = pd.DataFrame(scores["topics"])
    frame["model"] = frame["topic"].str.split("/").str[1]
    expected = frame.groupby("model")["mean_rating"].mean()
    got = {r["model"]: r["human"]["mean"] for r in out["models"]}
    assert got == pytest.approx(expected.to_dict())
    assert {r["model"]: r["measure"]["mean"] for r in out["models"]} == pytest.approx(
        measures.groupby("model")["heldout"].mean().to_dict()
    )
    for r in out["models"]:
        assert r["human"]["low"] <= r["human"]["mean"] <= r["human"]["high"] and r["human"]["n"] == 12
    hx = [got[m] for m in ("lda", "etm", "ctm")]
    mx = [measures.groupby("model")["heldout"].mean()[m] for m in ("lda", "etm", "ctm")]
    assert out["pearson"] == pytest.approx(stats.pearsonr(hx, mx)[0])
    assert (tmp_path / "models.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pd.DataFrame({"model": ["lda", "etm", "ctm"], "heldout_ll": [-7.1, -7.4, -7.0]}).to_csv(
        tmp_path / "ll.csv", index=False
    )
    svg = run_cli(
        [
            "human",
            "models",
            tmp_path / "scores.json",
            "--measures",
            tmp_path / "ll.csv",
            "--measure",
            "heldout_ll",
            "--per-model",
            "--plot",
            tmp_path / "m.svg",
            "--n-boot",
            "50",
        ]
    )
    assert svg.code == 0, svg.err
    assert b"<svg" in (tmp_path / "m.svg").read_bytes()[:500]
    direct = model_level(
        {r["topic"]: r["mean_rating"] for r in scores["topics"]},
        {"lda": -7.1, "etm": -7.4, "ctm": -7.0},
        key=["dataset", "model", "topic"],
        per_model=True,
        n_boot=50,
    )
    assert direct["spearman"] == pytest.approx(stats.spearmanr(hx, [-7.1, -7.4, -7.0])[0])


def test_correlate_unchanged_for_topic_bootstrap():
    h, a, _ = tables(np.random.default_rng(8), n=10)
    assert correlate(h, a, n_boot=100)["pearson"]["ci"]["bootstrap"] == "topics"


def test_model_level_per_dataset_and_model(tmp_path, run_cli):
    scores, measures = grouped(tmp_path, np.random.default_rng(9))
    pd.DataFrame(
        {
            "dataset": ["nyt"] * 3 + ["wiki"] * 3,
            "model": ["lda", "etm", "ctm"] * 2,
            "ll": [-7, -7.5, -7.2, -6, -6.4, -6.2],
        }
    ).to_csv(tmp_path / "ll.csv", index=False)
    res = run_cli(
        [
            "human",
            "models",
            tmp_path / "scores.json",
            "--measures",
            tmp_path / "ll.csv",
            "--measure",
            "ll",
            "--per-model",
            "--group",
            "dataset,model",
            "--n-boot",
            "50",
            "--format",
            "json",
        ]
    )
    assert res.code == 0, res.err
    out = json.loads(res.out)
    frame = pd.DataFrame(scores["topics"])
    frame["label"] = frame["topic"].str.rsplit("/", n=1).str[0]
    expected = frame.groupby("label")["mean_rating"].mean().to_dict()
    assert {r["label"]: r["human"]["mean"] for r in out["models"]} == pytest.approx(expected)
    assert {(r["dataset"], r["model"]): r["measure"]["mean"] for r in out["models"]}[("wiki", "etm")] == -6.4
    assert out["group"] == ["dataset", "model"] and len(out["models"]) == 6


def test_compare_two_level_pairs_both_measures_on_the_same_resampled_scores():
    from tealeaves.human.resampling import Responses, draw

    rng = np.random.default_rng(12)
    keys = [f"t{i}" for i in range(15)]
    values = {k: list(rng.normal(size=rng.integers(2, 6))) for k in keys}
    h = {k: float(np.mean(v)) for k, v in values.items()}
    a = {k: h[k] + rng.normal(scale=0.5) for k in keys}
    b = {k: rng.normal() for k in keys}
    out = compare_measures(h, a, b, bootstrap="both", responses=values, n_boot=300, seed=5)
    order = sorted(keys, key=lambda s: (len(s), s))
    ya, yb = np.array([a[k] for k in order]), np.array([b[k] for k in order])
    idx, hx, _ = draw(np.random.default_rng(5), Responses([values[k] for k in order]), 300, "both")
    diffs = [stats.pearsonr(hh, ya[i])[0] - stats.pearsonr(hh, yb[i])[0] for hh, i in zip(hx, idx)]
    assert (out["ci"]["low"], out["ci"]["high"]) == pytest.approx(tuple(np.quantile(diffs, [0.025, 0.975])))
    assert out["ci"]["bootstrap"] == "both" and out["signature"].split("|")[-2] == "resample=both"
    with pytest.raises(CorrelationError, match="per-response values"):
        compare_measures(h, a, b, bootstrap="annotators")
