"""Bad inputs to `human build-study|export-items|score|correlate`, `annotate serve|export` and the API.

Each case asserts the exact outcome: exit status + `tealeaves: error:` + a message fragment (no traceback),
a TealeavesError subclass + fragment, or the documented value (counts, nulls, identical scores).
"""

from __future__ import annotations

import copy
import json
import math
import re
import socket
import sqlite3

import numpy as np
import pandas as pd
import pytest

from tealeaves.errors import (
    EmptyInputError,
    InputEncodingError,
    InputNotFoundError,
    ParameterError,
)
from tealeaves.human.correlation import CorrelationError, correlate, read_topic_table
from tealeaves.human.items import StudyError
from tealeaves.human.results import ResultsError, read_results
from tealeaves.human.schema import StudyFormatError
from tealeaves.human.scoring import score
from tealeaves.human.store import JudgmentStore, StoreError
from tealeaves.human.study import Study, build_study
from tealeaves.models.base import FixedTopicModel


def model() -> FixedTopicModel:
    rng = np.random.default_rng(0)
    phi = rng.dirichlet(np.full(80, 0.05), size=6)
    return FixedTopicModel(phi, [f"w{i}" for i in range(80)])


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A saved model, its study (word intrusion + rating, one check each) and consistent results."""
    root = tmp_path_factory.mktemp("human_bad")
    m = model()
    m.save(root / "model.npz")
    study = build_study(m, tasks=["word_intrusion", "rating"], n_checks=1, seed=0)
    study.save(root / "study.json")
    rows = []
    for a, rating in (("ann", "2"), ("bob", "1"), ("cat", "0")):
        for item in study.items:
            resp = item.get("answer") if item["task"] == "word_intrusion" else (
                "0" if item.get("check") else rating)
            rows.append({"item_id": item["id"], "annotator": a, "response": resp})
    pd.DataFrame(rows).to_csv(root / "results.csv", index=False)
    return root, study, rows


def write(path, text: str | bytes):
    (path.write_bytes if isinstance(text, bytes) else lambda t: path.write_text(t, encoding="utf-8"))(text)
    return path


# -- human build-study -----------------------------------------------------------------------------------
@pytest.mark.parametrize("extra, code, fragment", [
    (["--seed", "-1"], 2, "seed must be a whole number >= 0"),
    (["--seed", "abc"], 2, "seed must be a whole number"),
    (["--seed", "4294967296"], 2, "<= 4294967295"),
    (["--n-top", "0"], 2, "--n-top must be a whole number >= 2"),
    (["--rating-words", "1"], 2, "--rating-words must be a whole number >= 2"),
    (["--n-checks", "-1"], 2, "--n-checks must be a whole number >= 0"),
    (["--n-documents", "0"], 2, "--n-documents must be a whole number >= 1"),
    (["--topics", "0,0"], 1, "--topics lists '0' more than once"),
    (["--topics", "6"], 1, "topic id must be a whole number >= 0 and <= 5, got 6"),
    (["--topics", "first"], 1, "topic id must be a whole number"),
    (["--topics", "0,,1"], 1, "--topics '0,,1' has an empty entry"),
    (["--annotators", "ann,ann"], 1, "--annotators lists 'ann' more than once"),
    (["--tasks", "rating,rating"], 1, "--tasks lists 'rating' more than once"),
    (["--tasks", "guess"], 1, "unknown or no tasks ['guess']"),
])
def test_build_study_options(files, cli_error, extra, code, fragment):
    root, _, _ = files
    cli_error(["human", "build-study", root / "model.npz", "-o", root / "out.json", *extra], fragment, code)
    assert not (root / "out.json").exists()


@pytest.mark.parametrize("setup, fragment", [
    (lambda r: ["--doc-topic", write(r / "t.npy", "not numpy")], "is not a .npy array"),
    (lambda r: ["--doc-topic", _npy(r, np.ones(6))], "must be a D x K array"),
    (lambda r: ["--doc-topic", _npy(r, np.full((2, 6), np.nan))], "finite numbers"),
    (lambda r: ["--doc-topic", _npy(r, np.full((2, 6), 1 / 6)), "--documents",
                write(r / "d.jsonl", '{"title": "a", "text": "b"}\n')],
     "has 1 records but --doc-topic 2 rows"),
    (lambda r: ["--doc-topic", _npy(r, np.full((2, 6), 1 / 6)), "--documents",
                write(r / "d.jsonl", '{"title": "a", "text": "b"}\n{oops\n')], "line 2 is not JSON"),
    (lambda r: ["--doc-topic", _npy(r, np.full((2, 6), 1 / 6)), "--documents",
                write(r / "d.jsonl", '{"title": 3, "text": "b"}\n{}\n')], "string 'title' and 'text'"),
    (lambda r: ["--multilingual", write(r / "m.json", '{"en": [["a", null]]}')],
     "one non-empty list of words"),
    (lambda r: ["--doc-topic", r / "absent.npy"], "does not exist"),
])
def test_build_study_input_files(files, cli_error, setup, fragment):
    root, _, _ = files
    cli_error(["human", "build-study", root / "model.npz", "-o", root / "out.json", "--tasks",
               "topic_intrusion", *setup(root)], fragment)


def _npy(root, array):
    np.save(root / "theta.npy", array)
    return root / "theta.npy"


@pytest.mark.parametrize("model_file, out, fragment", [
    ("absent.npz", "out.json", "does not exist"),
    ("results.csv", "out.json", "hold commas, as if words were comma-separated"),
    ("model.npz", "no/such/folder/out.json", "does not exist"),
    ("model.npz", ".", "is a folder"),
])
def test_build_study_paths(files, cli_error, model_file, out, fragment):
    root, _, _ = files
    cli_error(["human", "build-study", root / model_file, "-o", root / out], fragment)


# -- study files (export-items, score, serve all load them) -----------------------------------------------
def _mutate(study: Study, fn) -> dict:
    raw = copy.deepcopy(study.to_dict())
    fn(raw)
    return raw


def _item(raw, task, check=False):
    return next(i for i in raw["items"] if i["task"] == task and bool(i.get("check")) == check)


def _set(index, key, value):
    return lambda raw: raw["items"][index].__setitem__(key, value)


STUDY_CASES = [
    ("options as a string", _set(0, "options", "w1 w2 w3"), "options must be a list of at least two options"),
    ("null as a word", lambda r: r["items"][0]["options"].__setitem__(1, None),
     "options[1] must be a non-empty string, found null"),
    ("true as a word", lambda r: _item(r, "rating")["words"].__setitem__(0, True), "words[0] must be a "
     "non-empty string, found a boolean True"),
    ("float topic id", _set(0, "topic", 1.5),
     "must be a topic id (a whole number or a non-empty string), found a number 1.5"),
    ("boolean topic id", _set(0, "topic", True), "topic id (a whole number or a non-empty string)"),
    ("no answers", lambda r: r["items"][0].pop("answer"), "needs its answers to be scored"),
    ("answer not an option", _set(0, "answer", "zzz"), "answer must be the intruder"),
    ("duplicate item ids", _set(1, "id", "wi-0"), "items[1].id must be unique (items[0] has the same id)"),
    ("two items on one topic", _set(1, "topic", 0), "must be the only word_intrusion item about '0'"),
    ("string and int id clash", _set(1, "topic", "0"), "must be the only word_intrusion item about '0'"),
    ("unknown task", _set(0, "task", "guess"), "task must be one of word_intrusion"),
    ("format version", lambda r: r.__setitem__("format_version", 2), "format_version must be 1"),
    ("annotator with a newline", lambda r: r.__setitem__("annotators", ["ann\nLINK x"]), "without control "
     "characters"),
    ("repeated annotators", lambda r: r.__setitem__("annotators", ["ann", "ann"]),
     "a list of distinct names"),
    ("check without expected", lambda r: _item(r, "rating", True).pop("expected"),
     "expected must be a non-empty list"),
    ("items not a list", lambda r: r.__setitem__("items", {"a": 1}), "items must be a list of items"),
]


@pytest.mark.parametrize("name, mutate, fragment", STUDY_CASES, ids=[c[0] for c in STUDY_CASES])
def test_study_schema_via_export_items(files, cli_error, tmp_path, name, mutate, fragment):
    _, study, _ = files
    assert [i["id"] for i in study.items[:2]] == ["wi-0", "wi-1"]
    bad = write(tmp_path / "bad.json", json.dumps(_mutate(study, mutate)))
    cli_error(["human", "export-items", bad, "-o", tmp_path / "items.csv"], fragment)
    assert not (tmp_path / "items.csv").exists()
    with pytest.raises(StudyFormatError, match="study file"):
        Study.load(bad)


@pytest.mark.parametrize("content, cls, fragment", [
    ("{not json", StudyFormatError, "not valid JSON"),
    ('{"format": "tealeaves-study", "items": [], "seed": NaN}', StudyFormatError, "NaN is not a valid JSON"),
    ('{"format": "tealeaves-study", "items": []}', EmptyInputError, "the study has no items"),
    ('[1, 2]', StudyFormatError, "is not a tealeaves study file"),
    (b'{"format": "tealeaves-study", "name": "caf\xe9"}', InputEncodingError, "is not valid utf-8"),
])
def test_study_file_not_a_study(tmp_path, cli_error, content, cls, fragment):
    bad = write(tmp_path / "s.json", content)
    with pytest.raises(cls, match=fragment):
        Study.load(bad)
    cli_error(["human", "export-items", bad, "-o", tmp_path / "i.json"], fragment)


def test_study_with_bom_and_string_topic_ids_scores(files, tmp_path, run_cli):
    """Documented: a BOM is removed; string topic ids are kept as given and scored like integer ones."""
    root, study, rows = files
    raw = copy.deepcopy(study.to_dict())
    for item in raw["items"]:
        if item.get("topic") is not None:
            item["topic"] = f"news-{item['topic']}"
    path = tmp_path / "s.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(raw).encode())
    res = run_cli(["human", "score", root / "results.csv", "--study", path, "--format", "json"])
    assert res.code == 0, res.err
    base = run_cli(["human", "score", root / "results.csv", "--study", root / "study.json",
                    "--format", "json"])
    ours, theirs = json.loads(res.out)["topics"], json.loads(base.out)["topics"]
    assert [t["topic"] for t in ours] == [f"news-{t['topic']}" for t in theirs]
    assert [{k: v for k, v in t.items() if k != "topic"} for t in ours] == [
        {k: v for k, v in t.items() if k != "topic"} for t in theirs]


def test_export_items_unknown_format(files, cli_error, tmp_path):
    root, _, _ = files
    cli_error(["human", "export-items", root / "study.json", "-o", tmp_path / "items.txt"],
              "unknown item export format 'txt'")


# -- human score ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("content, extra, code, fragment", [
    ("", [], 1, "is empty"),
    ("item_id,annotator,response\n", [], 1, "the results file has no rows"),
    ("item,annotator,response\nwi-0,a,w1\n", [], 1, "results lack the column(s) ['item_id']"),
    ("item_id,annotator,response,response\nwi-0,a,w1,w2\n", [], 1,
     "has the column 'response' more than once"),
    (b"item_id,annotator,response\nr-0,Jos\xe9,2\n", [], 1, "is not valid utf-8: byte 0xe9 at line 2"),
    ("item_id,annotator,response\nr-0,a,2\n", ["--min-check-accuracy", "1.5"], 2,
     "--min-check-accuracy must be a number >= 0 and <= 1"),
    ("item_id,annotator,response\nr-0,a,2\n", ["--seed", "-3"], 2, "seed must be a whole number >= 0"),
    ("item_id,annotator,response\nr-0,a,2\n", ["--columns", "worker=WorkerId"], 1, "bad column mapping"),
    ("item_id,annotator,response\nr-0,a,2\n", ["--annotators", "a,,b"], 1, "has an empty entry"),
    ("item_id,annotator,response,WorkerId\nr-0,a,2,b\n", ["--columns", "annotator=WorkerId"], 1,
     "have the column(s) ['annotator'] twice"),
    ("item_id,annotator,response\nzzz,a,2\n", [], 1, "no usable judgments"),
    ("item_id,annotator,response\nr-0,a,2\nr-0,a,7\n", ["--strict"], 1, "strict mode"),
])
def test_score_bad_results(files, cli_error, tmp_path, content, extra, code, fragment):
    root, _, _ = files
    path = write(tmp_path / "r.csv", content)
    cli_error(["human", "score", path, "--study", root / "study.json", *extra], fragment, code)


@pytest.mark.parametrize("content, fragment", [
    ('[{"item_id": "r-0", "annotator": "a", "response": NaN}]', "NaN is not valid JSON"),
    ('{"item_id": "r-0"}', "must hold a list of objects"),
    ('[1, 2]', "must hold a list of objects"),
])
def test_score_bad_json_results(files, cli_error, tmp_path, content, fragment):
    root, _, _ = files
    path = write(tmp_path / "r.json", content)
    cli_error(["human", "score", path, "--study", root / "study.json"], fragment)


def test_score_encoding_option_and_bom_give_the_same_scores(files, tmp_path, run_cli):
    root, _, rows = files
    text = (root / "results.csv").read_text(encoding="utf-8")
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbf" + text.encode())
    latin = tmp_path / "latin.csv"
    latin.write_bytes((text + "r-0,Jos\xe9,2\n").encode("latin-1"))
    base = json.loads(run_cli(["human", "score", root / "results.csv", "--study", root / "study.json",
                               "--format", "json"]).out)
    with_bom = json.loads(run_cli(["human", "score", bom, "--study", root / "study.json",
                                   "--format", "json"]).out)
    assert with_bom["topics"] == base["topics"]
    res = run_cli(["human", "score", latin, "--study", root / "study.json", "--format", "json", "--encoding",
                   "latin-1"])
    assert res.code == 0 and json.loads(res.out)["n_annotators"] == 4


def test_invalid_rows_are_counted_and_json_has_no_nan(files, tmp_path, run_cli):
    """Issue 14: one invalid response made `human score -o` crash on a NaN; now it is counted."""
    root, study, rows = files
    extra = [{"item_id": "r-0", "annotator": "dan", "response": "zzz", "confidence": "high", "time": "inf"},
             {"item_id": "r-1", "annotator": "dan", "response": "", "confidence": "2", "time": "-1"},
             dict(rows[0]), {"item_id": "r-2", "annotator": "dan", "response": "1", "confidence": "",
                             "time": "3.5"}]
    pd.DataFrame(rows + extra).to_csv(tmp_path / "r.csv", index=False)
    res = run_cli(["human", "score", tmp_path / "r.csv", "--study", root / "study.json",
                   "-o", tmp_path / "o.json", "--format", "json"])
    assert res.code == 0, res.err
    report = json.loads((tmp_path / "o.json").read_text())
    assert report == json.loads(res.out)
    assert report["import"]["excluded"]["invalid_response"] == 1
    assert report["import"]["excluded"]["missing_value"] == 1
    assert report["import"]["excluded"]["duplicate_row"] == 1
    assert report["import"]["examples"]["invalid_response"] == [
        {"item_id": "r-0", "annotator": "dan", "response": "zzz"}]
    # the rows with confidence 'high' / time 'inf' or '-1' were excluded for their response; the kept row's
    # '' confidence is missing, not invalid
    assert report["import"]["invalid_values"] == {"confidence": 0, "time": 0}
    assert "NaN" not in res.out and "Infinity" not in res.out


def test_invalid_optional_values_are_nulled_and_counted(files):
    _, study, rows = files
    frame = pd.DataFrame([dict(r, confidence=c, time=t) for r, c, t in zip(
        rows[:4], ["high", "2", "", "-1"], ["inf", "3.5", "nan", "0"])])
    res = read_results(frame, study)
    assert res.report["invalid_values"] == {"confidence": 2, "time": 2}
    assert [None if math.isnan(x) else x for x in res.frame["confidence"]] == [None, 2.0, None, None]
    assert [None if math.isnan(x) else x for x in res.frame["time"]] == [None, 3.5, None, 0.0]


@pytest.mark.parametrize("out, fragment", [(".", "is a folder"), ("no/dir/o.json", "does not exist")])
def test_score_output_path(files, cli_error, out, fragment):
    root, _, _ = files
    cli_error(["human", "score", root / "results.csv", "--study", root / "study.json", "-o", root / out],
              fragment)


def test_study_without_answers_is_refused_before_scoring(files, cli_error, tmp_path):
    """Issue 14: a study without answers was accepted and then crashed scoring."""
    root, study, _ = files
    raw = copy.deepcopy(study.to_dict())
    for item in raw["items"]:
        item.pop("answer", None)
    bad = write(tmp_path / "s.json", json.dumps(raw))
    cli_error(["human", "score", root / "results.csv", "--study", bad], "items[0] ('wi-0').answer must be")


# -- human correlate --------------------------------------------------------------------------------------
HUMAN = "topic,model_precision\n0,0.9\n1,0.5\n2,0.7\n3,0.2\n4,0.4\n"


@pytest.mark.parametrize("measures, extra, code, fragment", [
    ("topic,npmi\n0,0.1\n0,0.2\n1,0.3\n", [], 1, "lists topic(s) ['0'] more than once"),
    ("t,npmi\n0,0.1\n", [], 1, "needs a 'topic' column"),
    ("topic,npmi\n0,0.1\n1,0.2\n", [], 1, "share 2 topics; a correlation needs at least 3"),
    ("topic,npmi\n0,0.1\n1,0.2\n2,0.3\n", ["--level", "1"], 2, "--level must be a number > 0 and < 1"),
    ("topic,npmi\n0,0.1\n1,0.2\n2,0.3\n", ["--level", "0"], 2, "--level must be a number > 0"),
    ("topic,npmi\n0,0.1\n1,0.2\n2,0.3\n", ["--n-boot", "0"], 2, "--n-boot must be a whole number >= 1"),
    ("topic,npmi\n0,0.1\n1,0.2\n2,0.3\n", ["--measure", "npmi", "--measure", "npmi"], 1, "more than once"),
    ("topic,npmi\n0,0.1\n1,0.2\n2,0.3\n", ["--measure", "cv"], 1, "measure(s) ['cv'] not in"),
    ("topic,npmi\n,0.1\n1,0.2\n2,0.3\n", [], 1, "has a topic id ''"),
])
def test_correlate_bad_inputs(tmp_path, cli_error, measures, extra, code, fragment):
    human = write(tmp_path / "h.csv", HUMAN)
    cli_error(["human", "correlate", human, "--measures", write(tmp_path / "m.csv", measures),
               "--n-boot", "50", *extra], fragment, code)


def test_correlate_counts_missing_and_invalid_values(tmp_path, run_cli):
    """Documented: empty cells are missing, 'high'/'nan'/'inf' invalid; both dropped and counted."""
    human = write(tmp_path / "h.csv", HUMAN)
    measures = write(tmp_path / "m.csv", "topic,npmi\n0,0.1\n1,\n2,high\n3,nan\n4,inf\n5,0.3\n6,0.2\n")
    counts: dict = {}
    assert read_topic_table(measures, counts) == {"npmi": {"0": 0.1, "5": 0.3, "6": 0.2}}
    assert counts == {"npmi": {"missing": 1, "invalid": 3}}
    res = run_cli(["human", "correlate", human, "--measures", measures, "--n-boot", "50", "--format", "json"])
    assert res.code == 1 and "share 1 topics" in res.err
    measures = write(tmp_path / "m.json", json.dumps({"npmi": {"0": 0.1, "1": None, "2": True, "3": 0.5,
                                                               "4": 0.3}}))
    res = run_cli(["human", "correlate", human, "--measures", measures, "--n-boot", "50", "--format", "json"])
    out = json.loads(res.out)[0]
    assert res.code == 0 and out["n_topics"] == 3
    assert out["dropped"] == {"human": {"missing": 0, "invalid": 0}, "measure": {"missing": 1, "invalid": 1}}


def test_correlate_json_table_with_nan_literal_counts_it(tmp_path):
    path = write(tmp_path / "m.json", '[{"topic": 0, "npmi": NaN}, {"topic": 1.0, "npmi": 0.5}]')
    counts: dict = {}
    assert read_topic_table(path, counts) == {"npmi": {"1": 0.5}} and counts["npmi"]["invalid"] == 1
    with pytest.raises(CorrelationError, match="must hold records"):
        read_topic_table(write(tmp_path / "n.json", "[1, 2]"))


# -- annotate serve / export ------------------------------------------------------------------------------
def _sqlite(path, sql):
    db = sqlite3.connect(path)
    db.executescript(sql)
    db.commit()
    db.close()
    return path


def _corrupt(path):
    _sqlite(path, "CREATE TABLE t (x); INSERT INTO t VALUES (randomblob(20000));")
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xaa" * (4096 - 100)
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("db, fragment", [
    (lambda p: p, "is a folder, not a database file"),
    (lambda p: write(p / "notes.txt", "hello"), "is not a SQLite database"),
    (lambda p: _sqlite(p / "other.sqlite", "CREATE TABLE foo (x);"), "not a tealeaves judgment database"),
    (lambda p: _corrupt(p / "bad.sqlite"), "database disk image is malformed"),
    (lambda p: p / "no" / "dir" / "j.sqlite", "does not exist"),
])
def test_serve_and_export_refuse_bad_db(files, cli_error, tmp_path, db, fragment):
    root, _, _ = files
    path = db(tmp_path)
    cli_error(["annotate", "serve", root / "study.json", "--db", path, "--annotators", "ann", "--port", "0"],
              fragment)
    cli_error(["annotate", "export", "--db", path, "-o", tmp_path / "out.csv"],
              "no judgment database" if "no/dir" in str(path) else fragment)


def test_serve_port_in_use(files, cli_error, tmp_path):
    root, _, _ = files
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        cli_error(["annotate", "serve", root / "study.json", "--db", tmp_path / "j.sqlite",
                   "--annotators", "ann", "--port", port],
                  f"cannot listen on 127.0.0.1:{port}: the address is already in use")


@pytest.mark.parametrize("extra, code, fragment", [
    (["--port", "70000"], 2, "--port must be a whole number >= 0 and <= 65535"),
    (["--port", "-1"], 2, "--port must be a whole number >= 0"),
    (["--annotators", "ann,ann"], 1, "--annotators lists 'ann' more than once"),
    (["--annotators", "ann", "--allow-origin", "evil.example/x"], 1, "is not an origin"),
    ([], 1, "no annotators"),
])
def test_serve_options(files, cli_error, tmp_path, extra, code, fragment):
    root, _, _ = files
    cli_error(["annotate", "serve", root / "study.json", "--db", tmp_path / "j.sqlite", "--port", "0",
               *extra], fragment, code)


def test_serve_refuses_a_database_of_another_study(files, cli_error, tmp_path):
    root, _, _ = files
    store = JudgmentStore(tmp_path / "j.sqlite")
    store.bind_study("0123456789abcdef")
    store.close()
    cli_error(["annotate", "serve", root / "study.json", "--db", tmp_path / "j.sqlite", "--annotators", "ann",
               "--port", "0"], "holds judgments of another study")


def test_export_missing_db_and_bad_output(files, cli_error, tmp_path):
    cli_error(["annotate", "export", "--db", tmp_path / "absent.sqlite", "-o", tmp_path / "o.csv"],
              "no judgment database")
    store = JudgmentStore(tmp_path / "j.sqlite")
    store.close()
    cli_error(["annotate", "export", "--db", tmp_path / "j.sqlite", "-o", tmp_path], "is a folder")


# -- Python API -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, cls, fragment", [
    ({"seed": -1}, ParameterError, "seed must be a whole number >= 0"),
    ({"seed": 1.5}, ParameterError, "seed must be a whole number"),
    ({"topics": [0, 0]}, ParameterError, "topics lists 0 more than once"),
    ({"topics": [7]}, ParameterError, "topic id must be a whole number >= 0 and <= 5, got 7"),
    ({"topics": [True]}, ParameterError, "topic id must be a whole number"),
    ({"topics": []}, ParameterError, "topics is empty"),
    ({"n_checks": 1.5}, ParameterError, "n_checks must be a whole number"),
    ({"n_top": 0}, ParameterError, "n_top must be a whole number >= 2"),
    ({"annotators": ["a", " "]}, ParameterError, "annotators must be a list of non-empty names"),
    ({"annotators": "alice"}, ParameterError, "annotators must be a list"),
    ({"tasks": ["rating", "rating"]}, ParameterError, "tasks lists 'rating' more than once"),
    ({"tasks": ["topic_intrusion"], "doc_topic": np.ones(6), "titles": ["a"], "texts": ["b"]}, StudyError,
     "doc_topic must be a D x K array"),
    ({"tasks": ["topic_intrusion"], "doc_topic": np.full((2, 6), 1 / 6), "titles": ["a", "b"],
      "texts": ["x", "y"], "documents": [0, 0]}, ParameterError, "document_ids lists 0 more than once"),
])
def test_build_study_api(kwargs, cls, fragment):
    with pytest.raises(cls, match=re.escape(fragment)):
        build_study(model(), **kwargs)


def test_results_api(files, tmp_path):
    _, study, rows = files
    with pytest.raises(InputNotFoundError, match="does not exist"):
        read_results(tmp_path / "absent.csv", study)
    with pytest.raises(ResultsError, match="twice"):
        read_results(pd.DataFrame(rows).assign(worker="x"), study, {"annotator": "worker"})
    res = read_results(pd.DataFrame(rows + rows[:2]), study)  # duplicate rows: kept once, counted
    assert res.report["excluded"]["duplicate_row"] == 2 and len(res.frame) == len(rows)
    assert score(res, study)["topics"] == score(read_results(pd.DataFrame(rows), study), study)["topics"]


def test_store_api(tmp_path):
    with pytest.raises(StoreError, match="is a folder"):
        JudgmentStore(tmp_path)
    with pytest.raises(StoreError, match="no judgment database"):
        JudgmentStore(tmp_path / "absent.sqlite", readonly=True)
    with pytest.raises(StoreError, match="synchronous must be FULL"):
        JudgmentStore(tmp_path / "j.sqlite", synchronous="OFF")


@pytest.mark.parametrize("call, cls, fragment", [
    (lambda s, r: score(r, s, min_check_accuracy=float("nan")), ParameterError,
     "min_check_accuracy must be a finite number"),
    (lambda s, r: score(r, s, min_check_accuracy=2), ParameterError,
     "min_check_accuracy must be a number >= 0"),
    (lambda s, r: score(r, s, n_splits=0), ParameterError, "n_splits must be a whole number >= 1"),
    (lambda s, r: read_results(r.frame, s, annotators="ann"), ParameterError, "annotators must be a list"),
    (lambda s, r: correlate({"0": 1, "1": 2, "2": 3}, {"0": 1, "1": 3, "2": 2}, level=1.0), ParameterError,
     "level must be a number > 0 and < 1"),
    (lambda s, r: correlate({"0": 1, "1": 2, "2": 3}, {"0": 1, "1": 3, "2": 2}, n_boot=0), ParameterError,
     "n_boot must be a whole number >= 1"),
    (lambda s, r: build_study(model(), name=""), ParameterError, "the study name must be a non-empty string"),
])
def test_scoring_and_correlation_api(files, call, cls, fragment):
    _, study, rows = files
    with pytest.raises(cls, match=re.escape(fragment)):
        call(study, read_results(pd.DataFrame(rows), study))


def test_serve_refuses_a_bad_study_file(cli_error, tmp_path):
    bad = write(tmp_path / "s.json",
                '{"format": "tealeaves-study", "items": [{"id": "x", "task": "rating"}]}')
    cli_error(["annotate", "serve", bad, "--db", tmp_path / "j.sqlite", "--annotators", "ann", "--port", "0"],
              "items[0] ('x').options must be a list of at least two options")
    assert not (tmp_path / "j.sqlite").exists()  # refused before the database is touched
