"""Bad inputs to `human import | describe-study | compare | models` and the new `score`/`correlate` options.

Each case asserts the exact outcome: exit status + `tealeaves: error:` + a message fragment (no traceback;
the run_cli/cli_error fixtures of tests/conftest.py), or the error class + fragment from the API, or the
documented value.
"""

from __future__ import annotations

import json

import pytest

from tealeaves.errors import EmptyInputError, InputFormatError, ParameterError
from tealeaves.human.results import ResultsError
from tealeaves.human.survey import describe_study, import_survey, parse_scale

HEADER = "task,dataset,model,topic,worker,answer,conf\n"
GOOD = "rating,nyt,lda,0,w1,2,3\nrating,nyt,lda,1,w1,3,2\nintrusion,nyt,lda,0,w2,1,1\n"
BASE = [
    "--item",
    "task,dataset,model,topic",
    "--task-column",
    "task",
    "--task-values",
    "intrusion=word_intrusion",
    "--annotator",
    "worker",
    "--response",
    "answer",
]
RATE = [*BASE, "--scale", "1-3", "--kind", "correct"]


def write(tmp_path, text, name="r.csv", encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def study_file(tmp_path, intruders=True):
    topics = {"nyt/lda/0": ["oil", "gas", "price"], "nyt/lda/1": ["cat", "dog", "pet"]}
    intr = {"nyt/lda/0": "bank", "nyt/lda/1": "car"} if intruders else None
    describe_study(topics, intruders=intr, scale=["1", "2", "3"]).save(tmp_path / "s.json")
    return tmp_path / "s.json"


IMPORT_CASES = {
    # name: (file text, extra argv, fragment, exit code)
    "response matches no kind": (
        HEADER + "intrusion,nyt,lda,0,w2,oil,1\nintrusion,nyt,lda,1,w2,gas,1\n",
        RATE,
        "matches none of the declared kinds",
        1,
    ),
    "ratings are words": (HEADER + "rating,nyt,lda,0,w1,good,1\n", RATE, "none of the declared kinds", 1),
    "data exceed the scale": (HEADER + GOOD + "rating,nyt,lda,2,w3,5,1\n", RATE, "invalid_response", 1),
    "key column empty in a row": (HEADER + GOOD + "rating,nyt,,2,w3,2,1\n", RATE, "missing_key", 1),
    "annotator empty": (HEADER + GOOD + "rating,nyt,lda,2,,2,1\n", RATE, "missing_annotator", 1),
    "unknown task value": (HEADER + GOOD + "ranking,nyt,lda,2,w3,2,1\n", RATE, "unknown_task", 1),
    "key column absent": (
        "task,dataset,topic,worker,answer\nrating,nyt,0,w1,2\n",
        RATE,
        "no column --item 'model'",
        1,
    ),
    "response column absent": (
        HEADER + GOOD,
        [*BASE[:-1], "reply", "--scale", "1-3", "--kind", "correct"],
        "--response 'reply'",
        1,
    ),
    "key holds the separator": (
        HEADER + "rating,nyt,lda/x,0,w1,2,1\n",
        RATE,
        "contains the key separator",
        1,
    ),
    "no scale for ratings": (HEADER + GOOD, [*BASE, "--kind", "correct"], "need their values declared", 1),
    "no kind for intrusion": (HEADER + GOOD, [*BASE, "--scale", "1-3"], "need --kind", 1),
    "option index without base": (
        HEADER + GOOD,
        [*BASE, "--scale", "1-3", "--kind", "option-index"],
        "--index-base",
        1,
    ),
    "index base 2": (
        HEADER + GOOD,
        [*BASE, "--scale", "1-3", "--kind", "option-index", "--index-base", "2"],
        "--index-base",
        2,
    ),
    "chosen word without study": (
        HEADER + GOOD,
        [*BASE, "--scale", "1-3", "--kind", "chosen-word"],
        "needs each item's options",
        1,
    ),
    "no task given": (
        HEADER + GOOD,
        ["--item", "dataset,model,topic", "--annotator", "worker", "--response", "answer", "--scale", "1-3"],
        "give the task",
        1,
    ),
    "bad --task": (
        HEADER + GOOD,
        [
            "--item",
            "dataset,model,topic",
            "--task",
            "ranking",
            "--annotator",
            "worker",
            "--response",
            "answer",
        ],
        "choose from",
        1,
    ),
    "task values map to nothing": (
        HEADER + GOOD,
        [*BASE[:5], "x=ranking", *BASE[6:], "--scale", "1-3"],
        "maps to",
        1,
    ),
    "scale reversed": (HEADER + GOOD, [*BASE, "--scale", "3-1", "--kind", "correct"], "LOW-HIGH", 1),
    "scale not numbers": (HEADER + GOOD, [*BASE, "--scale", "low-high", "--kind", "correct"], "LOW-HIGH", 1),
    "scale and map": (HEADER + GOOD, [*RATE, "--scale-map", "a=1,b=2"], "either --scale or --scale-map", 1),
    "map value not a number": (
        HEADER + GOOD,
        [*BASE, "--scale-map", "good=high,bad=1", "--kind", "correct"],
        "is not a number",
        1,
    ),
    "map label repeated": (
        HEADER + GOOD,
        [*BASE, "--scale-map", "a=1,A=2", "--kind", "correct"],
        "distinct labels",
        1,
    ),
    "map with one value": (
        HEADER + GOOD,
        [*BASE, "--scale-map", "a=1,b=1", "--kind", "correct"],
        "two distinct values",
        1,
    ),
    "item column repeated": (
        HEADER + GOOD,
        ["--item", "task,task", *BASE[2:], "--scale", "1-3"],
        "more than once",
        1,
    ),
    "only the task column": (
        HEADER + GOOD,
        ["--item", "task", *BASE[2:], "--scale", "1-3"],
        "besides the task column",
        1,
    ),
    "empty key separator": (HEADER + GOOD, [*RATE, "--key-sep", ""], "must not be empty", 1),
    "empty file": ("", RATE, "empty", 1),
    "header only": (HEADER, RATE, "no rows", 1),
    "every row skipped": (
        HEADER + "rating,nyt,lda,0,w1,,3\n",
        [*RATE, "--lenient"],
        "no usable judgments",
        1,
    ),
    "bad --kind": (HEADER + GOOD, [*BASE, "--scale", "1-3", "--kind", "word"], "invalid choice", 2),
}


@pytest.mark.parametrize("case", list(IMPORT_CASES))
def test_import_bad_input(case, tmp_path, cli_error):
    text, argv, fragment, code = IMPORT_CASES[case]
    path = write(tmp_path, text)
    cli_error(["human", "import", path, *argv, "-o", tmp_path / "out.csv"], fragment, code)
    assert not (tmp_path / "out.csv").exists()


def test_import_latin1_file_names_the_encoding(tmp_path, cli_error, run_cli):
    path = write(tmp_path, HEADER + "rating,nyt,lda,0,Jos\u00e9,2,1\n", encoding="latin-1")
    cli_error(["human", "import", path, *RATE, "-o", tmp_path / "o.csv"], "--encoding")
    ok = run_cli(["human", "import", path, *RATE, "--encoding", "latin-1", "-o", tmp_path / "o.csv"])
    assert ok.code == 0 and "José" in (tmp_path / "o.csv").read_text()


def test_study_and_results_with_no_item_in_common(tmp_path, cli_error):
    study = study_file(tmp_path)
    path = write(tmp_path, HEADER + "rating,wiki,etm,7,w1,2,1\n")
    cli_error(
        ["human", "import", path, *RATE, "--study", study, "-o", tmp_path / "o.csv"], "no item in common"
    )


def test_item_missing_from_the_study_is_an_error_then_counted(tmp_path, cli_error, run_cli):
    study = study_file(tmp_path)
    text = HEADER + "rating,nyt,lda,0,w1,2,1\nrating,wiki,etm,7,w1,2,1\n"
    path = write(tmp_path, text)
    cli_error(["human", "import", path, *RATE, "--study", study, "-o", tmp_path / "o.csv"], "unknown_item")
    res = run_cli(
        [
            "human",
            "import",
            path,
            *RATE,
            "--study",
            study,
            "--lenient",
            "-o",
            tmp_path / "o.csv",
            "--format",
            "json",
        ]
    )
    assert res.code == 0 and json.loads(res.out)["excluded"]["unknown_item"] == 1


def test_correctness_against_a_study_listing_the_words(tmp_path, cli_error):
    study = study_file(tmp_path)
    path = write(tmp_path, HEADER + "intrusion,nyt,lda,0,w1,1,1\n")
    cli_error(
        ["human", "import", path, *RATE, "--study", study, "-o", tmp_path / "o.csv"], "cannot say which word"
    )


def test_chosen_word_not_an_option_and_out_of_range_index(tmp_path, cli_error):
    study = study_file(tmp_path)
    path = write(tmp_path, HEADER + "intrusion,nyt,lda,0,w1,bank,1\nintrusion,nyt,lda,1,w1,zebra,1\n")
    argv = [*BASE, "--kind", "chosen-word", "--study", study, "-o", tmp_path / "o.csv"]
    cli_error(["human", "import", path, *argv], "invalid_response")
    path = write(tmp_path, HEADER + "intrusion,nyt,lda,0,w1,4,1\nintrusion,nyt,lda,1,w1,0,1\n", "i.csv")
    argv = [*BASE, "--kind", "option-index", "--index-base", "1", "--study", study, "-o", tmp_path / "o.csv"]
    cli_error(["human", "import", path, *argv], "invalid_response")


DESCRIBE_CASES = {
    "topics not JSON": ("{oops", None, [], "is not JSON"),
    "empty word list": ('{"a": []}', None, [], "non-empty list of words"),
    "topics a number": ("3", None, [], "JSON object"),
    "intruder of unknown topic": ('{"a": ["x", "y"]}', '{"b": "z"}', [], "not in --topics"),
    "intruder not among options": (
        '{"a": ["x", "y"]}',
        '{"a": {"intruder": "q", "options": ["x", "y"]}}',
        [],
        "needs an intruder",
    ),
    "topic intrusion": (
        '{"a": ["x", "y"]}',
        None,
        ["--tasks", "topic_intrusion"],
        "an external study describes",
    ),
    "bad scale": ('{"a": ["x", "y"]}', None, ["--scale", "2-2"], "LOW-HIGH"),
}


@pytest.mark.parametrize("case", list(DESCRIBE_CASES))
def test_describe_study_bad_input(case, tmp_path, cli_error):
    topics, intruders, argv, fragment = DESCRIBE_CASES[case]
    write(tmp_path, topics, "topics.json")
    extra = []
    if intruders is not None:
        write(tmp_path, intruders, "intr.json")
        extra = ["--intruders", tmp_path / "intr.json"]
    cli_error(
        [
            "human",
            "describe-study",
            "--topics",
            tmp_path / "topics.json",
            *extra,
            *argv,
            "-o",
            tmp_path / "s.json",
        ],
        fragment,
    )
    assert not (tmp_path / "s.json").exists()


@pytest.fixture
def scored(tmp_path, run_cli):
    text = HEADER + "".join(
        f"rating,nyt,{m},{k},w{a},{(k + a) % 3 + 1},{a % 3 + 1}\n"
        for m in ("lda", "etm")
        for k in range(5)
        for a in range(4)
    )
    path = write(tmp_path, text)
    assert (
        run_cli(
            [
                "human",
                "import",
                path,
                *RATE,
                "--confidence",
                "conf",
                "-o",
                tmp_path / "long.csv",
                "--study-out",
                tmp_path / "s.json",
            ]
        ).code
        == 0
    )
    assert (
        run_cli(
            [
                "human",
                "score",
                tmp_path / "long.csv",
                "--study",
                tmp_path / "s.json",
                "-o",
                tmp_path / "sc.json",
            ]
        ).code
        == 0
    )
    rows = [f"nyt,{m},{k},{0.1 * k + (m == 'lda')},{k % 2}" for m in ("lda", "etm") for k in range(5)]
    write(tmp_path, "dataset,model,topic,npmi,umass\n" + "\n".join(rows) + "\n", "m.csv")
    (tmp_path / "flat.csv").write_text("topic,mean_rating\n" + "\n".join(f"{k},{k}" for k in range(5)) + "\n")
    return tmp_path


ANALYSIS_CASES = {
    "min confidence without a column": (
        ["human", "score", "{d}/r.csv", "--study", "{d}/s.json", "--min-confidence", "2"],
        "needs a confidence column",
        1,
    ),
    "min confidence removes all": (
        ["human", "score", "{d}/long.csv", "--study", "{d}/s.json", "--min-confidence", "9"],
        "no judgments left",
        1,
    ),
    "min confidence not finite": (
        ["human", "score", "{d}/long.csv", "--study", "{d}/s.json", "--min-confidence", "nan"],
        "--min-confidence",
        2,
    ),
    "two-level without responses": (
        ["human", "correlate", "{d}/flat.csv", "--measures", "{d}/flat.csv", "--bootstrap", "both"],
        "per-response values",
        1,
    ),
    "by a part not in the key": (
        ["human", "correlate", "{d}/sc.json", "--measures", "{d}/m.csv", "--by", "split"],
        "not parts of the topic key",
        1,
    ),
    "by without a key": (
        ["human", "correlate", "{d}/flat.csv", "--measures", "{d}/flat.csv", "--by", "model"],
        "--key",
        1,
    ),
    "key does not fit the ids": (
        [
            "human",
            "correlate",
            "{d}/sc.json",
            "--measures",
            "{d}/m.csv",
            "--by",
            "model",
            "--key",
            "model,topic",
        ],
        "does not have the 2 parts",
        1,
    ),
    "bad bootstrap level": (
        ["human", "correlate", "{d}/sc.json", "--measures", "{d}/m.csv", "--bootstrap", "raters"],
        "invalid choice",
        2,
    ),
    "compare one measure": (
        ["human", "compare", "{d}/sc.json", "--measures", "{d}/m.csv", "--measure", "npmi"],
        "exactly twice",
        1,
    ),
    "compare the same measure twice": (
        [
            "human",
            "compare",
            "{d}/sc.json",
            "--measures",
            "{d}/m.csv",
            "--measure",
            "npmi",
            "--measure",
            "npmi",
        ],
        "--measure",
        1,
    ),
    "compare unknown measure": (
        [
            "human",
            "compare",
            "{d}/sc.json",
            "--measures",
            "{d}/m.csv",
            "--measure",
            "npmi",
            "--measure",
            "cv",
        ],
        "not in",
        1,
    ),
    "models plot suffix": (
        [
            "human",
            "models",
            "{d}/sc.json",
            "--measures",
            "{d}/m.csv",
            "--measure",
            "npmi",
            "--plot",
            "{d}/p.jpg",
        ],
        "must be named .png or .svg",
        1,
    ),
    "models per-model column missing": (
        ["human", "models", "{d}/sc.json", "--measures", "{d}/m.csv", "--measure", "heldout", "--per-model"],
        "has no column 'heldout'",
        1,
    ),
    "models group not in key": (
        [
            "human",
            "models",
            "{d}/sc.json",
            "--measures",
            "{d}/m.csv",
            "--measure",
            "npmi",
            "--group",
            "corpus",
        ],
        "not parts of the topic key",
        1,
    ),
}


@pytest.mark.parametrize("case", list(ANALYSIS_CASES))
def test_analysis_bad_input(case, scored, cli_error):
    argv, fragment, code = ANALYSIS_CASES[case]
    write(scored, HEADER + GOOD, "r.csv")
    (scored / "r.csv").write_text("item_id,annotator,response\nrating/nyt/lda/0,w1,2\n")
    cli_error([a.format(d=scored) if isinstance(a, str) else a for a in argv], fragment, code)
    assert not (scored / "p.jpg").exists()


def test_compare_with_too_few_shared_topics(scored, cli_error):
    (scored / "few.csv").write_text(
        "dataset,model,topic,npmi,umass\nnyt,lda,0,1,2\nnyt,lda,1,2,1\nnyt,lda,2,3,3\n"
    )
    res = cli_error(
        [
            "human",
            "compare",
            scored / "sc.json",
            "--measures",
            scored / "few.csv",
            "--measure",
            "npmi",
            "--measure",
            "umass",
        ],
        "at least 4",
    )
    assert "share 3 topics" in res.err


def test_a_group_with_too_few_topics_is_reported_not_a_crash(scored, run_cli):
    (scored / "g.csv").write_text(
        "dataset,model,topic,npmi\n"
        + "\n".join([f"nyt,lda,{k},{k}" for k in range(5)] + ["nyt,etm,0,1", "nyt,etm,1,0"])
        + "\n"
    )
    res = run_cli(
        [
            "human",
            "correlate",
            scored / "sc.json",
            "--measures",
            scored / "g.csv",
            "--by",
            "model",
            "--n-boot",
            "50",
            "--format",
            "json",
        ]
    )
    assert res.code == 0, res.err
    out = json.loads(res.out)
    etm = next(o for o in out if o["group"] == {"model": "etm"})
    assert etm["n_topics"] == 2 and "at least 3" in etm["undefined"]


@pytest.mark.parametrize(
    "call, error, fragment",
    [
        (lambda: parse_scale("1-1"), ParameterError, "LOW-HIGH"),
        (lambda: parse_scale("0-500"), ParameterError, "LOW-HIGH"),
        (
            lambda: import_survey(
                _frame(),
                item=["topic"],
                task="rating",
                annotator="who",
                response="r",
                scale=(1, 3),
                scale_map={"a": "1"},
            ),
            ParameterError,
            "not both",
        ),
        (
            lambda: import_survey(
                _frame(), item=["topic"], task="rating", annotator="who", response="r", scale=(1, 2)
            ),
            ResultsError,
            "invalid_response",
        ),
        (
            lambda: import_survey(
                _frame().iloc[:0], item=["topic"], task="rating", annotator="who", response="r", scale=(1, 3)
            ),
            EmptyInputError,
            "no rows",
        ),
        (lambda: describe_study({"a": ["x", ""]}), InputFormatError, "non-empty list"),
        (lambda: describe_study({"a": ["x"]}, intruders={"a": 3}), InputFormatError, "needs an intruder"),
    ],
)
def test_api_bad_input(call, error, fragment):
    with pytest.raises(error, match=fragment):
        call()


def _frame():
    import pandas as pd

    return pd.DataFrame({"topic": ["a", "b", "a"], "who": ["x", "x", "y"], "r": ["1", "3", "2"]})


def test_lenient_counts_out_of_scale_values_and_the_report_is_valid_json(tmp_path, run_cli):
    path = write(tmp_path, HEADER + GOOD + "rating,nyt,lda,2,w3,5,1\nrating,nyt,lda,3,w3,,1\n")
    res = run_cli(["human", "import", path, *RATE, "--lenient", "-o", tmp_path / "o.csv", "--format", "json"])
    report = json.loads(res.out)
    assert report["excluded"]["invalid_response"] == 1 and report["excluded"]["missing_response"] == 1
    assert report["examples"]["invalid_response"][0]["row"] == 4
    assert report["rows_kept"] == 3


def test_ratings_on_another_scale_are_an_error_not_a_misreading(tmp_path, cli_error, run_cli):
    """Issue 14: 1-3 ratings scored against a 0-2 study silently misread 1 and 2 and dropped 3."""
    describe_study({"a": ["x", "y"], "b": ["u", "v"]}, tasks=["rating"]).save(tmp_path / "s.json")
    (tmp_path / "r.csv").write_text("item_id,annotator,response\nrating/a,p,3\nrating/a,q,1\nrating/b,p,2\n")
    argv = ["human", "score", tmp_path / "r.csv", "--study", tmp_path / "s.json", "--format", "json"]
    res = cli_error(argv, "outside the study's scale")
    assert "import them again with the scale they use declared" in res.err
    assert "--scale" not in res.err  # `human import`'s option, not this command's
    lenient = run_cli([*argv, "--lenient"])
    report = json.loads(lenient.out)
    assert report["import"]["outside_scale"] == {"n": 1, "values": ["3"], "scales": [["0", "1", "2"]]}
    assert report["import"]["excluded"]["invalid_response"] == 1


def test_serving_a_study_coded_correct_incorrect_is_refused(tmp_path, cli_error):
    describe_study({"a": ["x", "y"]}, tasks=["word_intrusion"]).save(tmp_path / "s.json")
    cli_error(
        [
            "annotate",
            "serve",
            tmp_path / "s.json",
            "--db",
            tmp_path / "j.sqlite",
            "--annotators",
            "p",
            "--port",
            "0",
        ],
        "no words to show",
    )
    assert not (tmp_path / "j.sqlite").exists()


def test_perfectly_correlated_measures_leave_williams_undefined_not_a_crash(tmp_path, run_cli):
    (tmp_path / "s.csv").write_text("topic,mean_rating\n" + "".join(f"{k},{k % 3}\n" for k in range(6)))
    (tmp_path / "m.csv").write_text(
        "topic,a,b\n" + "".join(f"{k},{k},{2 * k + 1}\n" for k in range(6)) + "6,,1\n"
    )
    res = run_cli(
        [
            "human",
            "compare",
            tmp_path / "s.csv",
            "--measures",
            tmp_path / "m.csv",
            "--measure",
            "a",
            "--measure",
            "b",
            "--n-boot",
            "50",
            "--format",
            "json",
        ]
    )
    assert res.code == 0, res.err
    out = json.loads(res.out)
    assert "perfectly correlated" in out["williams_t"]["undefined"] and out["difference"] == 0
    assert out["dropped_on_read"]["a"] == {"missing": 1, "invalid": 0}
    text = run_cli(
        [
            "human",
            "compare",
            tmp_path / "s.csv",
            "--measures",
            tmp_path / "m.csv",
            "--measure",
            "a",
            "--measure",
            "b",
            "--n-boot",
            "50",
        ]
    )
    assert text.code == 0 and "Williams" not in text.out


def test_study_on_another_scale_or_coding_than_declared(tmp_path, cli_error):
    study = study_file(tmp_path)  # ratings 1-3, word intrusion with the words
    path = write(tmp_path, HEADER + "rating,nyt,lda,0,w1,2,1\n")
    cli_error(
        ["human", "import", path, *BASE, "--scale", "0-4", "--study", study, "-o", tmp_path / "o.csv"],
        "declared scale is",
    )
    bare = tmp_path / "bare"
    bare.mkdir()
    study = study_file(bare, intruders=False)
    path = write(tmp_path, HEADER + "intrusion,nyt,lda,0,w1,oil,1\n")
    cli_error(
        ["human", "import", path, *BASE, "--kind", "chosen-word", "--study", study, "-o", tmp_path / "o.csv"],
        "coded correct/incorrect",
    )


def test_scoring_results_of_another_study_says_no_item_in_common(tmp_path, cli_error):
    describe_study({"a": ["x", "y"]}, tasks=["rating"]).save(tmp_path / "s.json")
    (tmp_path / "r.csv").write_text("item_id,annotator,response\nwi-3,p,oil\nr-3,p,2\n")
    res = cli_error(
        ["human", "score", tmp_path / "r.csv", "--study", tmp_path / "s.json"], "no usable judgments"
    )
    assert "no item in common" in res.err and "rating/a" in res.err


CELLS = [
    "",
    "1",
    "2",
    "3",
    "4",
    "0",
    "-1",
    "2.0",
    "1e3",
    "nan",
    "inf",
    "true",
    "oil",
    "nyt",
    "lda",
    "a/b",
    "\u00e9",
    "\x1b[2J",
    " 2 ",
    "NULL",
]


@pytest.mark.parametrize("seed", range(40))
def test_random_cells_give_a_result_or_a_clean_error(seed, tmp_path, run_cli):
    """Any mixture of cells: exit 0 with every kept response on the declared scale/kind, or exit 1 with a
    message, never an internal error (exit 70) or a traceback (run_cli asserts no traceback)."""
    import random

    rng = random.Random(seed)
    rows = [
        ",".join(
            rng.choice(["rating", "intrusion", "other"] + CELLS[:3]) if j == 0 else rng.choice(CELLS)
            for j in range(7)
        )
        for _ in range(rng.randint(1, 12))
    ]
    path = write(tmp_path, HEADER + "\n".join(rows) + "\n")
    res = run_cli(["human", "import", path, *RATE, "--lenient", "-o", tmp_path / "o.csv"])
    assert res.code in (0, 1), res.err
    if res.code == 1:
        assert res.err.startswith("tealeaves: error: ") and "internal error" not in res.err
        return
    import pandas as pd

    out = pd.read_csv(tmp_path / "o.csv", dtype=str, keep_default_na=False)
    ratings = out[out["item_id"].str.startswith("rating/")]
    intrusion = out[out["item_id"].str.startswith("word_intrusion/")]
    assert set(ratings["response"]) <= {"1", "2", "3"} and set(intrusion["response"]) <= {"0", "1"}


@pytest.mark.parametrize(
    "checks, fragment",
    [
        ('{"zzz": ["1"]}', "not in --topics"),
        ('{"a": {"rating": ["7"]}}', "accepted responses"),
        ('{"a": {"rating": []}}', "accepted responses"),
        ('{"a": {"rating": [true]}}', "accepted responses"),
    ],
)
def test_describe_study_bad_checks(checks, fragment, tmp_path, cli_error):
    write(tmp_path, '{"a": ["x", "y"]}', "topics.json")
    write(tmp_path, checks, "checks.json")
    cli_error(
        [
            "human",
            "describe-study",
            "--topics",
            tmp_path / "topics.json",
            "--checks",
            tmp_path / "checks.json",
            "-o",
            tmp_path / "s.json",
        ],
        fragment,
    )
    cli_error(
        [
            "human",
            "describe-study",
            "--topics",
            tmp_path / "topics.json",
            "--key-sep",
            "",
            "-o",
            tmp_path / "s.json",
        ],
        "must not be empty",
    )


@pytest.mark.parametrize("scale", [(3, 1), (1, 1), (1,), ("a", "b"), (True, 3), (0, 500), 3])
def test_import_survey_refuses_a_scale_that_is_not_low_high(scale):
    # before: scale=(3, 1) ended in IndexError (exit 70 through a script)
    with pytest.raises(ParameterError, match="is not \\(LOW, HIGH\\) with whole numbers LOW < HIGH"):
        import_survey(_frame(), item=["topic"], task="rating", annotator="who", response="r", scale=scale)


def test_import_survey_reads_a_scale_given_as_a_list_as_the_tuple():
    a = import_survey(_frame(), item=["topic"], task="rating", annotator="who", response="r", scale=[1, 3])
    b = import_survey(_frame(), item=["topic"], task="rating", annotator="who", response="r", scale=(1, 3))
    assert a[0].equals(b[0]) and a[1:] == b[1:]


def test_import_with_a_study_whose_item_id_names_another_task(tmp_path, run_cli, cli_error):
    # before: exit 70 (ValueError: could not convert string to float: 'w1')
    from tealeaves.errors import StudyFormatError
    from tealeaves.human.study import Study

    survey = tmp_path / "survey.csv"
    survey.write_text("task,topic,who,r\n" + "".join(f"rating,{k},a{a},{(a + k) % 3 + 1}\n"
                                                    for k in range(4) for a in range(3)), encoding="utf-8")
    argv = ["human", "import", survey, "--item", "task,topic", "--task-column", "task", "--annotator", "who",
            "--response", "r", "--scale", "1-3"]
    assert run_cli([*argv, "-o", tmp_path / "a.csv", "--study-out", tmp_path / "s.json"]).code == 0
    study = json.loads((tmp_path / "s.json").read_text(encoding="utf-8"))
    study["items"][1].update(task="word_intrusion", options=["w1", "w2", "w3", "w4"], answer="w2")
    (tmp_path / "bad.json").write_text(json.dumps(study), encoding="utf-8")
    cli_error([*argv, "--study", tmp_path / "bad.json", "-o", tmp_path / "b.csv"],
              "the study's item 'rating/1' is a 'word_intrusion' item, but its id")
    assert not (tmp_path / "b.csv").exists()
    with pytest.raises(StudyFormatError, match="names the task|name the task"):
        import_survey(survey, item=["task", "topic"], task_column="task", annotator="who", response="r",
                      scale=(1, 3), study=Study.load(tmp_path / "bad.json"))
