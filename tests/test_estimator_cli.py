"""``tealeaves estimator features|train|apply``: the CLI estimator reproduces the reproduction's
held-out prediction, a saved estimator predicts exactly as the trained one, and tables computed
with other settings are refused."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import FULL, disk_cached, require_data

pytestmark = pytest.mark.xdist_group("bible_vs_modern")

#: The code the bible-vs-modern reproduction runs (a stale cache is never reused).
SOURCES = ["reproduce/bible_vs_modern.py", "models/polylingual.py", "models/_pltm_kernels.py",
           *(f"multilingual/{m}.py" for m in ("measures", "features", "estimator", "reference", "era",
                                               "drift", "dictionaries", "topics", "names")),
           "coherence/core.py", "coherence/_kernels.py", "coherence/_kernels_frequent.py",
           "coherence/_blocked.py", "coherence/_pair_tables.py", "coherence/confirmation.py",
           "corpus/parallel.py",
           *(f"index/{m}.py" for m in ("reference", "build", "aligned", "format", "_checks")),
           "corpus/aligned.py", "corpus/preprocess.py"]


def _source_key() -> str:
    import tealeaves

    root = Path(tealeaves.__file__).parent
    return hashlib.sha256(b"".join((root / f).read_bytes() for f in SOURCES)).hexdigest()[:12]


def _run() -> tuple[dict, pd.DataFrame]:
    """The reproduction at full size, or the quick configuration over five languages (four train)."""
    from dataclasses import replace

    from tealeaves.reproduce.bible_vs_modern import Config, run

    result = run(Config() if FULL else replace(Config.quick(), languages=("ro", "sv", "am", "tl", "tr")))
    return {k: v for k, v in result.items() if k != "topics"}, result["topics"]


@pytest.fixture(scope="module")
def reproduction():
    require_data("bible/ebible/vref.txt")
    require_data("parallel/flores200/docs/eng_Latn.jsonl")
    return disk_cached(f"estimator_cli_repro_{'full' if FULL else 'quick5'}_{_source_key()}", _run)


@pytest.mark.slow
def test_cli_estimator_equals_the_reproductions_held_out_prediction(reproduction, tmp_path, run_cli):
    """Trained through the CLI on every language but the last, applied to the last: the estimates are
    the reproduction's ``estimate_+drift`` column for that language (quick: 4 train + 1; full: 5 + 1)."""
    result, topics = reproduction
    held = result["config"]["languages"][-1]
    train, test = tmp_path / "train.csv", tmp_path / "test.csv"
    topics[topics["lang"] != held].to_csv(train, index=False)
    topics[topics["lang"] == held].drop(columns=["target"]).to_csv(test, index=False)
    est = tmp_path / "est.json"
    r = run_cli(["estimator", "train", str(train), "--n-estimators", str(result["config"]["n_estimators"]),
                 "--seed", "0", "-o", str(est)])
    assert r.code == 0, r.err
    assert "record no feature settings" in r.err
    doc = json.loads(est.read_text())
    assert doc["training_languages"] == [x for x in result["config"]["languages"] if x != held]
    row = next(row for row in result["rows"] if row["test"] == held)
    assert doc["best_params"] == row["params"]["+drift"]
    out = tmp_path / "out.csv"
    r = run_cli(["estimator", "apply", str(est), str(test), "-o", str(out), "--format", "json"])
    assert r.code == 0, r.err
    expected = topics[topics["lang"] == held]["estimate_+drift"].to_numpy()
    np.testing.assert_allclose(pd.read_csv(out)["estimate"].to_numpy(), expected, rtol=0, atol=1e-12)
    shown = json.loads(r.out)
    assert [row["bible_cnpmi"] for row in shown["rows"]] == pytest.approx(
        topics[topics["lang"] == held]["cnpmi"].tolist())


# -- small user data: features, training and refusal without the reproduction -------------------------
POOR = [{"id": i, "en": en, "sv": sv, "ro": ro} for i, (en, sv, ro) in enumerate([
    ("the king went to the city", "kungen gick till staden", "regele a mers in oras"),
    ("the city was large and glad", "staden var stor och glad", "orasul era mare"),
    ("a shepherd kept sheep in the field", "en herde vaktade får på fältet", "un pastor pazea oile"),
    ("the king and the shepherd spoke", "kungen och herden talade", "regele si pastorul au vorbit"),
    ("people feasted in the city", "folket festade i staden", "poporul a petrecut in oras"),
])]
RICH = POOR + [{"id": 100 + i, "en": en, "sv": sv, "ro": ro} for i, (en, sv, ro) in enumerate([
    ("the sheep left the field", "fåren lämnade fältet", "oile au parasit campul"),
    ("the king ruled the people", "kungen styrde folket", "regele a condus poporul"),
])]
TOPICS = {"en": [["king", "city", "people"], ["shepherd", "sheep", "field"], ["king", "shepherd", "large"]],
          "sv": [["kungen", "staden", "folket"], ["herde", "får", "fältet"], ["kungen", "herden", "stor"]],
          "ro": [["regele", "oras", "poporul"], ["pastor", "oile", "campul"], ["regele", "pastorul", "mare"]]}
DICTS = {"sv": "king kungen\ncity staden\npeople folket\nshepherd herde\nsheep får\nfield fältet\n",
         "ro": "king regele\ncity oras\npeople poporul\nshepherd pastor\nsheep oile\nfield campul\n"}


@pytest.fixture
def small(tmp_path, run_cli):
    """Poor and rich user references, a dictionary and a topics file per language pair."""
    out = {}
    for name, rows in (("poor", POOR), ("rich", RICH)):
        src = tmp_path / f"{name}.jsonl"
        src.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
        assert run_cli(["index", "build-aligned", str(src), "-o", str(tmp_path / name)]).code == 0
        out[name] = tmp_path / name
    for x in ("sv", "ro"):
        (tmp_path / f"en-{x}.txt").write_text(DICTS[x], encoding="utf-8")
        (tmp_path / f"topics-{x}.json").write_text(json.dumps({"en": TOPICS["en"], x: TOPICS[x]}), "utf-8")
    return tmp_path, out


def _features(run_cli, tmp, refs, x, *extra, rich=True):
    table = tmp / f"feat-{x}{'-'.join(extra)}.csv"
    args = ["estimator", "features", str(tmp / f"topics-{x}.json"), "--reference", str(refs["poor"]),
            "--dictionary", str(tmp / f"en-{x}.txt"), "--top", "3", "-o", str(table), *extra]
    if rich:
        args += ["--rich", str(refs["rich"])]
    r = run_cli(args)
    assert r.code == 0, r.err
    return table


def test_features_table_holds_the_measures_and_settings(small, run_cli):
    from tealeaves.multilingual import measures as M
    from tealeaves.multilingual.estimator_io import read_table

    tmp, refs = small
    frame, settings = read_table(_features(run_cli, tmp, refs, "sv"))
    pair = {"en": TOPICS["en"], "sv": TOPICS["sv"]}
    assert frame["cnpmi"].tolist() == M.cnpmi(pair, refs["poor"]).per_topic.tolist()
    assert frame["target"].tolist() == M.cnpmi(pair, refs["rich"]).per_topic.tolist()
    assert frame["lang"].tolist() == ["sv"] * 3 and frame["C"].tolist() == [3, 3, 3]
    assert settings["cnpmi"] == {"ref": "poor", "top": "3", "win": "doc", "zero": "limit", "absent": "zero"}
    assert settings["mta"] == {"top": "3", "mode": "pairs"}


def test_saved_estimator_predicts_as_the_trained_one_and_refuses_other_settings(small, run_cli, cli_error):
    from tealeaves.multilingual.estimator import CoherenceEstimator
    from tealeaves.multilingual.estimator_io import load_estimator, read_table

    tmp, refs = small
    tables = [_features(run_cli, tmp, refs, x) for x in ("sv", "ro")]
    est = tmp / "est.json"
    r = run_cli(["estimator", "train", *map(str, tables), "--features", "base,gap", "--n-estimators", "5",
                 "-o", str(est)])
    assert r.code == 0, r.err
    frame = pd.concat([read_table(t)[0] for t in tables], ignore_index=True)
    direct = CoherenceEstimator(features=("base", "gap"), n_estimators=5, random_state=0)
    direct.fit(frame, frame["target"].to_numpy(), frame["lang"].to_numpy())
    loaded, doc = load_estimator(est)
    assert doc["training_languages"] == ["sv", "ro"] and doc["features"] == ["base", "gap"]
    assert doc["settings"] == read_table(tables[0])[1]
    assert loaded.predict(frame).tolist() == direct.predict(frame).tolist()
    # applied to a poor-only table with the training settings: the estimate beside the Bible CNPMI
    plain = _features(run_cli, tmp, refs, "ro", rich=False)
    r = run_cli(["estimator", "apply", str(est), str(plain), "--format", "json"])
    assert r.code == 0, r.err
    shown = json.loads(r.out)
    ro = read_table(plain)[0]
    assert [row["estimate"] for row in shown["rows"]] == direct.predict(ro).tolist()
    assert [row["bible_cnpmi"] for row in shown["rows"]] == ro["cnpmi"].tolist()
    # other feature settings: refused
    other = _features(run_cli, tmp, refs, "ro", "--zero", "zero", rich=False)
    cli_error(["estimator", "apply", str(est), str(other)], "other feature settings")
