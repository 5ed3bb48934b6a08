"""Bad inputs of the multilingual tools: aligned tuples (``index build-aligned``, ``pltm fit``), saved
aligned references (``cnpmi --reference PATH``), saved polylingual models, feature tables and
estimator files (``estimator train|apply``), and out-of-range ``pltm`` options.

Each case asserts the exit code, the one ``tealeaves: error:`` line with a fragment, and no traceback
(the ``cli_error`` fixture); API cases assert the error class and a fragment.
"""

from __future__ import annotations

import json

import pytest

from tealeaves.errors import InputFormatError, InputNotFoundError

KING = {"id": 1, "en": "the king went to the city", "sv": "kungen gick till staden"}
CITY = {"id": 2, "en": "the city was large", "sv": "staden var stor"}
TOPICS = {"en": [["king", "city"]], "sv": [["kungen", "staden"]]}


def _write(path, content):
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in content), encoding="utf-8")
    return path


# -- JSON Lines tuples -------------------------------------------------------------------------------
TUPLE_CASES = {
    "no common language": ([{"id": 1, "en": "king city"}, {"id": 2, "sv": "kungen staden"}],
                           "no tuple holds documents in two languages"),
    "one language": ([{"id": 1, "en": "king city"}, {"id": 2, "en": "sheep"}], "needs two or more"),
    "empty language side": ([KING, {"id": 2, "en": "city", "sv": ""}], "the 'sv' text is empty"),
    "blank language side": ([KING, {"id": 2, "en": "city", "sv": "   "}], "the 'sv' text is empty"),
    "language never present": ([{**KING, "ro": None}, CITY], "languages ['ro'] have no document"),
    "not a language code": ([{**KING, "klingon": "blah"}], "'klingon' is not a language code"),
    "a field that is no language": ([{**KING, "url": None, "title": "x"}], "'title' is not a language code"),
    "duplicate id": ([KING, KING], "id '1' already used on line 1"),
    "missing id": ([{"en": "king", "sv": "kungen"}], 'has no "id"'),
    "boolean id": ([{**KING, "id": True}], "expected a non-empty string or a whole number"),
    "float id": ([{**KING, "id": 1.5}], "expected a non-empty string or a whole number"),
    "empty id": ([{**KING, "id": " "}], "expected a non-empty string or a whole number"),
    "not JSON": ('{"id": 1, "en": "king"\n', "line 1 is not JSON"),
    "a list per line": ('[1, 2]\n', "holds a list, not an object"),
    "number as text": ([{**KING, "sv": 3}], "expected the text as a string"),
    "text as list": ([{**KING, "sv": ["kungen"]}], "expected the text as a string"),
    "same language twice": ([{**KING, "eng": "the king"}], "two keys name language 'en'"),
    "empty file": ("\n\n", "holds no tuples"),
    "invalid UTF-8": (b'{"id": 1, "en": "caf\xe9", "sv": "x"}\n', "utf-8"),
}


@pytest.mark.parametrize("case", TUPLE_CASES, ids=list(TUPLE_CASES))
def test_bad_tuples_refused_by_build_aligned_and_pltm_fit(case, tmp_path, cli_error):
    content, fragment = TUPLE_CASES[case]
    src = _write(tmp_path / "t.jsonl", content)
    cli_error(["index", "build-aligned", str(src), "-o", str(tmp_path / "ref")], fragment, progress=True)
    assert not (tmp_path / "ref").exists()
    cli_error(["pltm", "fit", str(src), "-k", "2", "--iterations", "2", "--chains", "1",
               "-o", str(tmp_path / "m")], fragment)


ARG_CASES = {
    "--languages absent": (["--languages", "en,ro"], "has no text in ['ro']"),
    "--languages empty entry": (["--languages", "en,"], "has an empty entry"),
    "--languages repeated": (["--languages", "en,en"], "more than once"),
    "--doc-ids without --lang": (["--doc-ids", "ids.txt"], "--doc-ids belongs to parallel line files"),
    "the same shard twice": (["SELF"], "two inputs have the same file name"),
}


@pytest.mark.parametrize("case", ARG_CASES, ids=list(ARG_CASES))
def test_bad_input_options(case, tmp_path, cli_error):
    extra, fragment = ARG_CASES[case]
    src = _write(tmp_path / "t.jsonl", [KING, CITY])
    extra = [str(src) if e == "SELF" else e for e in extra]
    cli_error(["index", "build-aligned", str(src), *extra, "-o", str(tmp_path / "ref")], fragment,
              progress=True)


def test_parallel_files_bad_specs(tmp_path, cli_error):
    en = _write(tmp_path / "en.txt", "the king\nthe city\n")
    sv = _write(tmp_path / "sv.txt", "kungen\n")
    ids = _write(tmp_path / "ids.txt", "a\nb\n")
    out = ["-o", str(tmp_path / "ref")]
    cli_error(["index", "build-aligned", "--lang", f"en={en}", *out], "need --doc-ids", progress=True)
    cli_error(["index", "build-aligned", "--lang", "en", "--doc-ids", str(ids), *out], "is not CODE=FILE",
              progress=True)
    cli_error(["index", "build-aligned", "--lang", f"en={en}", "--lang", f"sv={sv}", "--doc-ids", str(ids),
               *out],
              "one line per id", progress=True)
    cli_error(["index", "build-aligned", "--lang", f"en={en}", "--lang", f"eng={en}", "--doc-ids", str(ids),
               *out], "languages given twice", progress=True)
    cli_error(["index", "build-aligned", "--lang", f"en={tmp_path / 'nope.txt'}", "--lang", f"sv={sv}",
               "--doc-ids", str(ids), *out], "nope.txt", progress=True)


# -- saved aligned references ---------------------------------------------------------------------
@pytest.fixture
def reference(tmp_path, run_cli):
    src = _write(tmp_path / "t.jsonl", [KING, CITY])
    assert run_cli(["index", "build-aligned", str(src), "-o", str(tmp_path / "ref")]).code == 0
    topics = _write(tmp_path / "topics.json", json.dumps(TOPICS))
    return tmp_path / "ref", topics


def _edit_manifest(ref, **changes):
    path = ref / "aligned.json"
    doc = json.loads(path.read_text())
    doc.update(changes)
    path.write_text(json.dumps(doc))


REF_CASES = {
    "missing path": (lambda ref: ref.parent / "nowhere", "does not exist"),
    "a file": (lambda ref: ref / "en.tlx", "it is a file, not a folder"),
    "folder without manifest": (lambda ref: (ref / "aligned.json").unlink() or ref, "has no aligned.json"),
    "manifest not JSON": (lambda ref: _write(ref / "aligned.json", "{") and ref, "aligned.json is not JSON"),
    "other format": (lambda ref: _edit_manifest(ref, format="tealeaves-index") or ref,
                     "does not declare format"),
    "other version": (lambda ref: _edit_manifest(ref, format_version=2) or ref, "format version 2"),
    "other id space": (lambda ref: _edit_manifest(ref, n_tuples=7) or ref, "not one tuple-id space"),
    "one language": (lambda ref: _edit_manifest(ref, languages={"en": "en.tlx"}) or ref,
                     "two or more language files"),
    "file outside the folder": (lambda ref: _edit_manifest(ref, languages={"en": "../x.tlx", "sv": "sv.tlx"})
                                or ref, "is not a file name in the folder"),
    "truncated index": (lambda ref: _write(ref / "sv.tlx", (ref / "sv.tlx").read_bytes()[:100]) and ref,
                        "sv.tlx"),
}


@pytest.mark.parametrize("case", REF_CASES, ids=list(REF_CASES))
def test_reference_path_that_is_not_an_aligned_reference(case, reference, cli_error):
    ref, topics = reference
    make, fragment = REF_CASES[case]
    cli_error(["cnpmi", str(topics), "--reference", str(make(ref))], fragment)


def test_unknown_reference_name_is_a_missing_path(reference, cli_error):
    _, topics = reference
    result = cli_error(["cnpmi", str(topics), "--reference", "wikipedia"],
                       "reference 'wikipedia' does not exist")
    assert "give a built-in name (bible, flores, ntrex, tico19, udhr)" in result.err


def test_reference_without_a_topic_language(reference, cli_error, tmp_path):
    ref, _ = reference
    topics = _write(tmp_path / "ro.json", json.dumps({"en": [["king", "city"]], "ro": [["regele", "oras"]]}))
    cli_error(["cnpmi", str(topics), "--reference", str(ref)], "has no 'ro' side")


def test_api_errors_for_reference_paths(reference):
    from tealeaves.multilingual import measures as M

    ref, _ = reference
    with pytest.raises(InputNotFoundError, match="does not exist"):
        M.cnpmi(TOPICS, ref.parent / "nowhere")
    with pytest.raises(InputFormatError, match="not an aligned reference"):
        M.inpmi(TOPICS, ref / "sv.tlx")


# -- pltm options and model folders ---------------------------------------------------------------
FIT_OPTIONS = {
    "-k 0": (["-k", "0"], "-k"),
    "--chains 0": (["--chains", "0"], "--chains"),
    "--iterations 0": (["--iterations", "0"], "--iterations"),
    "--link-fraction 1.5": (["--link-fraction", "1.5"], "--link-fraction"),
    "--link-fraction nan": (["--link-fraction", "nan"], "--link-fraction"),
    "--alpha 0": (["--alpha", "0"], "--alpha"),
    "--beta -1": (["--beta", "-1"], "--beta"),
    "--max-df 0": (["--max-df", "0"], "--max-df"),
    "--optimize-interval -1": (["--optimize-interval", "-1"], "--optimize-interval"),
    "--seed -1": (["--seed", "-1"], "--seed"),
    "-k 2.5": (["-k", "2.5"], "-k"),
}


@pytest.mark.parametrize("case", FIT_OPTIONS, ids=list(FIT_OPTIONS))
def test_pltm_fit_options_out_of_range(case, tmp_path, cli_error):
    extra, fragment = FIT_OPTIONS[case]
    src = _write(tmp_path / "t.jsonl", [KING, CITY])
    cli_error(["pltm", "fit", str(src), *extra, "-o", str(tmp_path / "m")], fragment, code=2)


def test_pltm_fit_refusals_after_parsing(tmp_path, cli_error):
    src = _write(tmp_path / "t.jsonl", [KING, CITY])
    cli_error(["pltm", "fit", str(src), "--iterations", "10", "--burn-in", "10", "-o", str(tmp_path / "m")],
              "is not below --n-iter")
    _write(tmp_path / "file", "x")
    cli_error(["pltm", "fit", str(src), "-o", str(tmp_path / "file")], "is not a folder")
    digits = _write(tmp_path / "d.jsonl", [{"id": 1, "en": "123 456", "sv": "kungen"}])
    cli_error(["pltm", "fit", str(digits), "-o", str(tmp_path / "m")], "no word survives")


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    from tealeaves.cli import main

    tmp = tmp_path_factory.mktemp("pltm")
    src = _write(tmp / "t.jsonl", [KING, CITY, {"id": 3, "en": "sheep in the field", "sv": "får på fältet"}])
    assert main(["pltm", "fit", str(src), "-k", "2", "--chains", "1", "--iterations", "5", "--max-df", "1",
                 "-o",
                 str(tmp / "m")]) == 0
    return tmp / "m"


def test_pltm_model_folder_refusals(model, tmp_path, cli_error):
    import shutil

    cli_error(["pltm", "topics", str(tmp_path)], "is not a saved polylingual model")
    cli_error(["pltm", "topics", str(tmp_path / "none")], "does not exist")
    ro = _write(tmp_path / "ro.jsonl", [{"id": 1, "en": "king", "ro": "regele"}])
    cli_error(["pltm", "infer", str(model), str(ro)], "that the model lacks")
    src = _write(tmp_path / "t.jsonl", [KING])
    cli_error(["pltm", "infer", str(model), str(src), "--iterations", "5", "--burn-in", "5"], "is not below")
    broken = tmp_path / "broken"
    shutil.copytree(model, broken)
    _write(broken / "pltm.npz", b"not a zip")
    cli_error(["pltm", "topics", str(broken)], "pltm.npz is unreadable")


def test_pltm_model_of_another_version(model, tmp_path, cli_error):
    import shutil

    import numpy as np

    other = tmp_path / "other"
    shutil.copytree(model, other)
    with np.load(other / "pltm.npz") as z:
        arrays = {k: z[k] for k in z.files}
    header = json.loads(str(arrays.pop("header")))
    header["format_version"] = 2
    np.savez(other / "pltm.npz", header=np.array(json.dumps(header)), **arrays)
    cli_error(["pltm", "topics", str(other)], "format version 2")


# -- feature tables and estimator files -------------------------------------------------------------
COLS = ["C", "cnpmi", "inpmi", "mta", "twc", "mc", "icc"]


def _table(path, rows=4, lang=("sv", "sv", "ro", "ro"), drop=(), nan=None, settings=None):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({c: rng.random(rows) for c in COLS})
    frame["target"] = rng.random(rows)
    frame.insert(0, "lang", list(lang)[:rows])
    frame = frame.drop(columns=list(drop))
    if nan is not None:
        frame.loc[1, nan] = float("nan")
    if settings is None:
        frame.to_csv(path, index=False)
    else:
        from tealeaves.multilingual.estimator_io import write_table
        write_table(path, frame, settings, ["en", "sv"])
    return path


@pytest.fixture
def estimator(tmp_path, run_cli):
    table = _table(tmp_path / "train.csv")
    est = tmp_path / "est.json"
    r = run_cli(["estimator", "train", str(table), "--features", "base,gap", "--n-estimators", "3",
                 "-o", str(est)])
    assert r.code == 0, r.err
    return est


def _tamper(est, **changes):
    doc = json.loads(est.read_text())
    doc.update(changes)
    est.write_text(json.dumps(doc))
    return est


ESTIMATOR_FILES = {
    "another version": (lambda e: _tamper(e, format_version=99), "format version 99"),
    "not JSON": (lambda e: _write(e, "{oops"), "not JSON"),
    "another format": (lambda e: _tamper(e, format="tealeaves-model"), "does not declare format"),
    "columns do not match groups": (lambda e: _tamper(e, columns=["C"]), "do not match its groups"),
    "other features": (lambda e: _tamper(e, features=["base", "nope"]), "unknown feature groups"),
    "learners missing": (lambda e: _tamper(e, boosting={}), "missing or malformed"),
    "recorded settings vs unrecorded table": (lambda e: _tamper(e, settings={"cnpmi": {"top": "10"}}),
                                              "feature settings are unrecorded"),
}


@pytest.mark.parametrize("case", ESTIMATOR_FILES, ids=list(ESTIMATOR_FILES))
def test_estimator_files_refused(case, estimator, tmp_path, cli_error):
    make, fragment = ESTIMATOR_FILES[case]
    cli_error(["estimator", "apply", str(make(estimator)), str(_table(tmp_path / "new.csv"))], fragment)


TABLES = {
    "lacks a feature group": (dict(drop=("mc",)), "lacks the feature columns ['mc']"),
    "NaN feature": (dict(nan="icc"), "column 'icc' row 2"),
    "no lang column": (dict(drop=("lang",)), "no 'lang' column"),
}


@pytest.mark.parametrize("case", TABLES, ids=list(TABLES))
def test_tables_refused_by_apply(case, estimator, tmp_path, cli_error):
    kwargs, fragment = TABLES[case]
    cli_error(["estimator", "apply", str(estimator), str(_table(tmp_path / "bad.csv", **kwargs))], fragment)


def test_tables_refused_by_train(tmp_path, cli_error):
    out = ["-o", str(tmp_path / "e.json")]
    no_target = _table(tmp_path / "a.csv", drop=("target",))
    cli_error(["estimator", "train", str(no_target), "--features", "base,gap", *out], "columns ['target']")
    cli_error(["estimator", "train", str(_table(tmp_path / "b.csv")), "--features", "base,bogus", *out],
              "unknown groups ['bogus']")
    a = _table(tmp_path / "c.csv", settings={"cnpmi": {"top": "10"}})
    b = _table(tmp_path / "d.csv", settings={"cnpmi": {"top": "20"}})
    cli_error(["estimator", "train", str(a), str(b), "--features", "base", *out],
              "different feature settings")
    _write(tmp_path / "e.csv", "# tealeaves-features {\"format_version\": 7}\nlang,C\nsv,1\n")
    cli_error(["estimator", "train", str(tmp_path / "e.csv"), *out], "settings version 7")
    _write(tmp_path / "f.csv", "")
    cli_error(["estimator", "train", str(tmp_path / "f.csv"), *out], "has no rows")


def test_features_need_two_languages_one_high(tmp_path, cli_error, reference):
    ref, _ = reference
    three = _write(tmp_path / "three.json", json.dumps({**TOPICS, "ro": [["regele", "oras"]]}))
    cli_error(["estimator", "features", str(three), "--reference", str(ref), "-o", str(tmp_path / "f.csv")],
              "exactly two languages")
    two = _write(tmp_path / "two.json", json.dumps(TOPICS))
    cli_error(["estimator", "features", str(two), "--reference", str(ref), "--high", "ro", "-o",
               str(tmp_path / "f.csv")], "one of them --high ro")
    # drift from saved folders is no longer refused (tests/test_drift_index.py): the topics' English words
    # are compared between the two folders' English sides
