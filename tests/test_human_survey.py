"""`tealeaves human import` / `describe-study`: an external survey as it comes, scored through the CLI.

The survey is generated in the shape of a released crowdsourced study: composite item keys (task,
dataset, model, topic), ratings on a 1-3 scale, word intrusion released as 0/1 correctness and (a second
export) as 1-based option indices, a confidence column, annotator ids repeated across items (and an
annotator answering one item twice), a UTF-8 byte-order mark and a few invalid rows.  Every per-topic
score is checked against a direct pandas computation on the raw rows.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from tealeaves.human.results import read_results
from tealeaves.human.scoring import score
from tealeaves.human.study import Study
from tealeaves.human.survey import describe_study, import_survey

DATASETS, MODELS, TOPICS = ("nyt", "wiki"), ("lda", "etm"), ("t0", "t1", "t2", "t3", "t4")


def survey(rng: np.random.Generator) -> pd.DataFrame:
    """Raw survey rows: ratings 1-3 and 0/1 intrusion correctness, with invalid rows appended."""
    rows = []
    for ds in DATASETS:
        for model in MODELS:
            for topic in TOPICS:
                workers = rng.choice(30, size=7, replace=False)
                for w in workers:
                    rows.append(
                        {
                            "Task": "coherence",
                            "Dataset": ds,
                            "Model": model,
                            "Topic": topic,
                            "WorkerId": f"W{w:02d}",
                            "Answer": str(rng.integers(1, 4)),
                            "Confidence": str(rng.integers(1, 6)),
                        }
                    )
                    rows.append(
                        {
                            "Task": "intrusion",
                            "Dataset": ds,
                            "Model": model,
                            "Topic": topic,
                            "WorkerId": f"W{w:02d}",
                            "Answer": str(int(rng.random() < 0.6)),
                            "Confidence": str(rng.integers(1, 6)),
                        }
                    )
    frame = pd.DataFrame(rows)
    repeat = frame.iloc[[0, 1]].copy()  # W.. answers two items again: one identical, one different
    repeat.loc[repeat.index[1], "Answer"] = "1" if repeat.iloc[1]["Answer"] == "0" else "0"
    bad = pd.DataFrame(
        [
            {
                "Task": "coherence",
                "Dataset": "nyt",
                "Model": "lda",
                "Topic": "t0",
                "WorkerId": "W90",
                "Answer": "4",
                "Confidence": "3",
            },  # outside the 1-3 scale
            {
                "Task": "coherence",
                "Dataset": "nyt",
                "Model": "lda",
                "Topic": "t1",
                "WorkerId": "W91",
                "Answer": "",
                "Confidence": "2",
            },  # skipped question
            {
                "Task": "intrusion",
                "Dataset": "wiki",
                "Model": "etm",
                "Topic": "t2",
                "WorkerId": "W92",
                "Answer": "maybe",
                "Confidence": "4",
            },  # not correct/incorrect
            {
                "Task": "coherence",
                "Dataset": "wiki",
                "Model": "",
                "Topic": "t3",
                "WorkerId": "W93",
                "Answer": "2",
                "Confidence": "1",
            },  # item key cell missing
        ]
    )
    return pd.concat([frame, repeat, bad], ignore_index=True)


def usable_rows(raw: pd.DataFrame) -> pd.DataFrame:
    """The raw rows that can be used: key and answer present, on the scale, duplicates resolved."""
    ok = raw[(raw["Model"] != "") & (raw["Answer"] != "")].copy()
    ok = ok[
        ((ok["Task"] == "coherence") & ok["Answer"].isin(["1", "2", "3"]))
        | ((ok["Task"] == "intrusion") & ok["Answer"].isin(["0", "1"]))
    ]
    ok = ok.drop_duplicates(["Task", "Dataset", "Model", "Topic", "WorkerId", "Answer"])
    return ok[~ok.duplicated(["Task", "Dataset", "Model", "Topic", "WorkerId"], keep=False)]


def expected_scores(raw: pd.DataFrame, min_confidence: float | None = None) -> pd.DataFrame:
    """Per-topic mean rating and model precision computed directly from the raw rows with pandas."""
    ok = usable_rows(raw)
    if min_confidence is not None:
        ok = ok[ok["Confidence"].astype(float) >= min_confidence]
    ok["topic"] = ok["Dataset"] + "/" + ok["Model"] + "/" + ok["Topic"]
    ok["value"] = ok["Answer"].astype(float)
    table = ok.pivot_table(index="topic", columns="Task", values="value", aggfunc=["mean", "count"])
    return pd.DataFrame(
        {
            "mean_rating": table[("mean", "coherence")],
            "n_rating": table[("count", "coherence")],
            "model_precision": table[("mean", "intrusion")],
            "n_wi": table[("count", "intrusion")],
        }
    )


IMPORT = [
    "human",
    "import",
    "--item",
    "Task,Dataset,Model,Topic",
    "--task-column",
    "Task",
    "--task-values",
    "coherence=rating,intrusion=word_intrusion",
    "--annotator",
    "WorkerId",
    "--response",
    "Answer",
    "--confidence",
    "Confidence",
    "--scale",
    "1-3",
    "--kind",
    "correct",
]


@pytest.fixture
def exported(tmp_path):
    raw = survey(np.random.default_rng(7))
    path = tmp_path / "survey.csv"
    path.write_bytes(raw.to_csv(index=False).encode("utf-8-sig"))  # as spreadsheet tools save it: with a BOM
    return raw, path


@pytest.mark.parametrize("min_confidence", [None, 3])
def test_external_survey_through_the_cli_equals_pandas_on_the_raw_rows(
    exported, tmp_path, run_cli, min_confidence
):
    raw, path = exported
    out = run_cli(
        [
            *IMPORT,
            path,
            "--lenient",
            "-o",
            tmp_path / "long.csv",
            "--study-out",
            tmp_path / "s.json",
            "--format",
            "json",
        ]
    )
    assert out.code == 0, out.err
    report = json.loads(out.out)
    assert report["rows_read"] == len(raw)
    assert report["excluded"] == {
        "missing_response": 1,
        "missing_key": 1,
        "missing_annotator": 0,
        "unknown_task": 0,
        "unknown_item": 0,
        "invalid_response": 2,
    }
    assert report["rows_kept"] == len(raw) - 4
    argv = [
        "human",
        "score",
        tmp_path / "long.csv",
        "--study",
        tmp_path / "s.json",
        "-o",
        tmp_path / "sc.json",
        "--format",
        "json",
    ]
    res = run_cli(argv + ([] if min_confidence is None else ["--min-confidence", min_confidence]))
    assert res.code == 0, res.err
    scores = json.loads(res.out)
    assert "NaN" not in res.out and json.loads((tmp_path / "sc.json").read_text()) == scores
    expected = expected_scores(raw, min_confidence)
    got = pd.DataFrame(scores["topics"]).set_index("topic").sort_index()
    assert list(got.index) == sorted(expected.index)
    assert len(got) == len(DATASETS) * len(MODELS) * len(TOPICS)
    expected = expected.loc[got.index]
    np.testing.assert_allclose(got["mean_rating"], expected["mean_rating"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(got["model_precision"], expected["model_precision"], rtol=0, atol=1e-12)
    assert list(got["n_mean_rating"]) == list(expected["n_rating"])
    assert list(got["n_word_intrusion"]) == list(expected["n_wi"])
    assert scores["rating_scale"] == {"rating": [1.0, 2.0, 3.0]}
    assert scores["import"]["excluded"]["duplicate_row"] == 1
    assert scores["import"]["excluded"]["conflicting_duplicate"] == 2
    assert scores["topic_key"] == ["Dataset", "Model", "Topic"]
    if min_confidence is not None:
        low = int((usable_rows(raw)["Confidence"].astype(float) < min_confidence).sum())
        assert scores["filters"]["removed"] == {"low_confidence": low, "no_confidence": 0, "by_annotator": 0}
        assert low > 0 and scores["n_judgments"] == len(usable_rows(raw)) - low


def test_values_outside_the_declared_scale_are_an_error_without_lenient(exported, tmp_path, cli_error):
    _, path = exported
    res = cli_error([*IMPORT, path, "-o", tmp_path / "long.csv"], "cannot be used")
    assert "invalid_response" in res.err and "--lenient" in res.err
    assert not (tmp_path / "long.csv").exists()


def test_option_indices_with_a_described_study(tmp_path, run_cli):
    """Intrusion released as the 1-based index of the chosen option, scored against the intruders."""
    rng = np.random.default_rng(3)
    topics = {f"m{m}/{k}": [f"w{m}{k}{j}" for j in range(5)] for m in range(2) for k in range(4)}
    intruders = {}
    for t, words in topics.items():
        options = [*words, f"x-{t}"]
        rng.shuffle(options)
        intruders[t] = {"intruder": f"x-{t}", "options": options}
    (tmp_path / "topics.json").write_text(json.dumps(topics))
    (tmp_path / "intr.json").write_text(json.dumps(intruders))
    assert (
        run_cli(
            [
                "human",
                "describe-study",
                "--topics",
                tmp_path / "topics.json",
                "--intruders",
                tmp_path / "intr.json",
                "--tasks",
                "word_intrusion",
                "-o",
                tmp_path / "s.json",
            ]
        ).code
        == 0
    )
    rows = [
        {
            "model": t.split("/")[0],
            "topic": t.split("/")[1],
            "who": f"a{a}",
            "choice": int(rng.integers(1, 7)),
        }
        for t in topics
        for a in range(6)
    ]
    pd.DataFrame(rows).to_csv(tmp_path / "r.csv", index=False)
    res = run_cli(
        [
            "human",
            "import",
            tmp_path / "r.csv",
            "--item",
            "model,topic",
            "--task",
            "word_intrusion",
            "--annotator",
            "who",
            "--response",
            "choice",
            "--kind",
            "option-index",
            "--index-base",
            "1",
            "--study",
            tmp_path / "s.json",
            "-o",
            tmp_path / "long.csv",
        ]
    )
    assert res.code == 0, res.err
    out = score(
        read_results(tmp_path / "long.csv", Study.load(tmp_path / "s.json")), Study.load(tmp_path / "s.json")
    )
    frame = pd.DataFrame(rows)
    frame["t"] = frame["model"] + "/" + frame["topic"]
    frame["hit"] = [
        intruders[t]["options"][c - 1] == intruders[t]["intruder"]
        for t, c in zip(frame["t"], frame["choice"])
    ]
    expected = frame.groupby("t")["hit"].mean()
    got = {r["topic"]: r["model_precision"] for r in out["topics"]}
    assert got == pytest.approx(expected.to_dict(), abs=1e-12)
    zero_based = run_cli(
        [
            "human",
            "import",
            tmp_path / "r.csv",
            "--item",
            "model,topic",
            "--task",
            "word_intrusion",
            "--annotator",
            "who",
            "--response",
            "choice",
            "--kind",
            "option-index",
            "--index-base",
            "0",
            "--study",
            tmp_path / "s.json",
            "--lenient",
            "-o",
            tmp_path / "l0.csv",
            "--format",
            "json",
        ]
    )
    assert json.loads(zero_based.out)["excluded"]["invalid_response"] == int((frame["choice"] == 6).sum())


def test_scale_map_and_string_ids_through_the_api(tmp_path):
    frame = pd.DataFrame(
        {
            "topic": ["α-1", "α-1", "β 2", "β 2", "β 2"],
            "rater": ["a", "b", "a", "b", "c"],
            "label": ["Good", "bad", "OK", "good", "ok"],
        }
    )
    long, study, report = import_survey(
        frame,
        item=["topic"],
        task="rating",
        annotator="rater",
        response="label",
        scale_map={"bad": "1", "ok": "2", "good": "3"},
    )
    assert list(long["response"]) == ["3", "1", "2", "3", "2"]
    assert study.settings["rating_scale"] == ["1", "2", "3"]
    out = score(read_results(long, study), study)
    assert {r["topic"]: r["mean_rating"] for r in out["topics"]} == {"α-1": 2.0, "β 2": pytest.approx(7 / 3)}


def test_describe_study_records_what_is_known_and_scoring_says_what_is_missing(tmp_path):
    study = describe_study(
        {"a": ["x", "y", "z"], "b": ["u", "v", "w"]},
        intruders={"a": "q"},
        tasks=["word_intrusion", "rating"],
        scale=["1", "2", "3"],
    )
    by = study.by_id
    assert by["word_intrusion/a"]["answer"] == "q" and by["word_intrusion/a"]["options"] == [
        "x",
        "y",
        "z",
        "q",
    ]
    assert by["word_intrusion/b"]["coding"] == "correct" and by["word_intrusion/b"]["options"] == ["1", "0"]
    assert by["rating/a"]["options"] == ["1", "2", "3"] and by["rating/a"]["words"] == ["x", "y", "z"]
    study.save(tmp_path / "s.json")
    assert Study.load(tmp_path / "s.json").fingerprint == study.fingerprint
    # a hand-written external study without the intruder: model precision is reported as not computable
    raw = study.to_dict()
    raw["items"][0] = {**raw["items"][0], "answer": None}
    (tmp_path / "bare.json").write_text(json.dumps(raw))
    bare = Study.load(tmp_path / "bare.json")
    judg = pd.DataFrame(
        {
            "item_id": ["word_intrusion/a", "word_intrusion/b", "rating/a"],
            "annotator": ["p", "p", "p"],
            "response": ["q", "1", "3"],
        }
    )
    out = score(read_results(judg, bare), bare)
    assert out["unavailable"] == [
        {
            "quantity": "model_precision",
            "task": "word_intrusion",
            "n_items": 1,
            "items": ["word_intrusion/a"],
            "needs": out["unavailable"][0]["needs"],
        }
    ]
    assert "intruder" in out["unavailable"][0]["needs"]
    assert [t["topic"] for t in out["topics"] if "model_precision" in t] == ["b"]


def test_import_without_study_derives_one_and_the_cli_prints_a_summary(exported, tmp_path, run_cli):
    _, path = exported
    res = run_cli(
        [*IMPORT, path, "--lenient", "-o", tmp_path / "long.csv", "--study-out", tmp_path / "s.json"]
    )
    assert res.code == 0 and "excluded" in res.out
    study = Study.load(tmp_path / "s.json")
    assert study.settings["origin"] == "external" and study.settings["key_sep"] == "/"
    assert len(study) == 2 * len(DATASETS) * len(MODELS) * len(TOPICS)


def test_import_into_a_judgment_database_scores_like_the_csv(exported, tmp_path, run_cli):
    _, path = exported
    base = [*IMPORT, path, "--lenient", "--study-out", tmp_path / "s.json", "--format", "json"]
    assert run_cli([*base, "-o", tmp_path / "long.csv"]).code == 0
    res = run_cli([*base, "-o", tmp_path / "j.sqlite"])
    assert res.code == 0, res.err
    out = json.loads(res.out)["output"]
    assert out["format"] == "sqlite" and out["resolved"]["conflicting_duplicate"] == 2
    again = json.loads(run_cli([*base, "-o", tmp_path / "j.sqlite"]).out)["output"]["store"]
    assert (
        set(again) == {"duplicate"} and again["duplicate"] == out["store"]["stored"]
    )  # nothing stored twice
    assert run_cli(["annotate", "export", "--db", tmp_path / "j.sqlite", "-o", tmp_path / "db.csv"]).code == 0
    scored = [
        json.loads(run_cli(["human", "score", f, "--study", tmp_path / "s.json", "--format", "json"]).out)[
            "topics"
        ]
        for f in (tmp_path / "long.csv", tmp_path / "db.csv")
    ]
    assert scored[0] == scored[1]


def test_filters_by_annotator_and_check_items_are_counted():
    study = describe_study({"a": ["x", "y"], "b": ["u", "v"], "c": ["p", "q"]}, tasks=["rating"])
    raw = study.to_dict()
    raw["items"].append(
        {
            "id": "check-0",
            "task": "rating",
            "options": ["0", "1", "2"],
            "check": True,
            "expected": ["0"],
            "words": ["x", "u", "p"],
        }
    )
    study = Study(items=raw["items"], settings=raw["settings"])
    rows = [
        (i, a, r)
        for i, a, r in [
            ("rating/a", "ann", "2"),
            ("rating/b", "ann", "1"),
            ("check-0", "ann", "0"),
            ("rating/a", "bob", "0"),
            ("rating/c", "bob", "2"),
            ("check-0", "bob", "2"),
            ("rating/a", "cy", "1"),
            ("rating/b", "cy", "2"),
            ("rating/c", "dee", "1"),
        ]
    ]
    frame = pd.DataFrame(rows, columns=["item_id", "annotator", "response"])
    out = score(read_results(frame, study), study, exclude_annotators=["dee"])
    assert out["filters"]["removed"] == {"low_confidence": 0, "no_confidence": 0, "by_annotator": 1}
    sc = out["screening"]
    assert (sc["n_check_items"], sc["n_checked"], sc["n_passing"]) == (1, 2, 1)
    assert sc["excluded"] == ["bob"] and sc["judgments_removed"] == 3 and sc["unchecked"] == ["cy"]
    assert {t["topic"]: t["mean_rating"] for t in out["topics"]} == {"a": 1.5, "b": 1.5}


def test_topic_intrusion_without_theta_is_reported_not_scored(tmp_path, run_cli):
    raw = {
        "format": "tealeaves-study",
        "settings": {"origin": "external"},
        "items": [
            {
                "id": "ti-d1",
                "task": "topic_intrusion",
                "document": "d1",
                "options": ["3", "5", "8", "9"],
                "answer": "9",
            },
            {"id": "r-1", "task": "rating", "topic": "k1", "options": ["1", "2", "3", "4", "5"]},
        ],
    }
    (tmp_path / "s.json").write_text(json.dumps(raw))
    (tmp_path / "r.csv").write_text("item_id,annotator,response\nti-d1,a,9\nti-d1,b,3\nr-1,a,5\nr-1,b,4\n")
    res = run_cli(["human", "score", tmp_path / "r.csv", "--study", tmp_path / "s.json", "--format", "json"])
    assert res.code == 0, res.err
    out = json.loads(res.out)
    assert out["documents"] == [] and out["topics"] == [
        {"topic": "k1", "mean_rating": 4.5, "n_mean_rating": 2}
    ]
    assert out["unavailable"][0]["quantity"] == "topic_log_odds" and "theta" in out["unavailable"][0]["needs"]
    assert out["rating_scale"] == {"rating": [1.0, 2.0, 3.0, 4.0, 5.0]}
    text = run_cli(["human", "score", tmp_path / "r.csv", "--study", tmp_path / "s.json"])
    assert "not scored: topic_log_odds of 1 topic_intrusion item(s)" in text.out


def test_check_items_of_an_external_study_screen_annotators(tmp_path, run_cli):
    topics = {"t1": ["a", "b"], "t2": ["c", "d"], "chk": ["apple", "gravel"]}
    (tmp_path / "topics.json").write_text(json.dumps(topics))
    (tmp_path / "checks.json").write_text(json.dumps({"chk": {"rating": [1], "word_intrusion": ["1"]}}))
    res = run_cli(
        [
            "human",
            "describe-study",
            "--topics",
            tmp_path / "topics.json",
            "--checks",
            tmp_path / "checks.json",
            "--scale",
            "1-3",
            "-o",
            tmp_path / "s.json",
        ]
    )
    assert res.code == 0, res.err
    study = Study.load(tmp_path / "s.json")
    assert study.by_id["rating/chk"]["check"] and study.by_id["rating/chk"]["expected"] == ["1"]
    rows = [
        ("rating", "t1", "p", "3"),
        ("rating", "t2", "p", "2"),
        ("rating", "chk", "p", "1"),
        ("rating", "t1", "q", "1"),
        ("rating", "t2", "q", "1"),
        ("rating", "chk", "q", "3"),
        ("intrusion", "t1", "q", "1"),
        ("intrusion", "chk", "q", "1"),
        ("rating", "t1", "r", "2"),
    ]
    pd.DataFrame(rows, columns=["task", "topic", "who", "ans"]).to_csv(tmp_path / "r.csv", index=False)
    assert (
        run_cli(
            [
                "human",
                "import",
                tmp_path / "r.csv",
                "--item",
                "task,topic",
                "--task-column",
                "task",
                "--task-values",
                "intrusion=word_intrusion",
                "--annotator",
                "who",
                "--response",
                "ans",
                "--scale",
                "1-3",
                "--kind",
                "correct",
                "--study",
                tmp_path / "s.json",
                "-o",
                tmp_path / "long.csv",
            ]
        ).code
        == 0
    )
    out = json.loads(
        run_cli(
            ["human", "score", tmp_path / "long.csv", "--study", tmp_path / "s.json", "--format", "json"]
        ).out
    )
    sc = out["screening"]
    assert (sc["n_check_items"], sc["n_checked"], sc["n_passing"]) == (2, 2, 1)
    assert sc["excluded"] == ["q"] and sc["judgments_removed"] == 5 and sc["unchecked"] == ["r"]
    assert sc["per_annotator"]["q"] == {"passed": 1, "total": 2, "accuracy": 0.5}
    assert {t["topic"]: t["mean_rating"] for t in out["topics"]} == {"t1": 2.5, "t2": 2.0}
    half = json.loads(
        run_cli(
            [
                "human",
                "score",
                tmp_path / "long.csv",
                "--study",
                tmp_path / "s.json",
                "--min-check-accuracy",
                "0.5",
                "--format",
                "json",
            ]
        ).out
    )
    assert half["screening"]["excluded"] == [] and half["screening"]["judgments_removed"] == 0
    assert {t["topic"]: t["mean_rating"] for t in half["topics"]} == {"t1": 2.0, "t2": 1.5}
