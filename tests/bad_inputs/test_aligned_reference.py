"""Saved aligned references (a folder of one ``.tlx`` index per language and its ``aligned.json``
manifest) read by ``cnpmi --reference PATH``: a tampered, damaged or deeply nested manifest, language files
swapped or taken from another reference, languages spelled with aliases.

Each case asserts a clean error (exit code, ``tealeaves: error:`` and a fragment, no traceback), or a result
equal to an independent computation.  A comment "before:" says what the case did before its fix."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from conftest import DEEP, DOCS, ROWS, brute_npmi_pair
from conftest import write_jsonl as _jsonl
from conftest import write_text as _write
from conftest import write_tuples as _tuples


# -- the manifest and the language files ---------------------------------------------------------------------
@pytest.fixture
def aligned(tmp_path, run_cli):
    """A small aligned reference folder (en, sv) and a topics file over it."""
    out = tmp_path / "ref"
    assert run_cli(["index", "build-aligned", _tuples(tmp_path), "-o", out]).code == 0
    topics = _write(tmp_path / "topics.json", json.dumps({"en": [["cat", "mat", "dog"]],
                                                          "sv": [["katten", "mattan", "hund"]]}))
    return out, topics


def test_manifest_with_swapped_language_files(aligned, cli_error, run_cli):
    out, topics = aligned
    assert run_cli(["cnpmi", topics, "--reference", out, "--top", "3", "--format", "json"]).code == 0
    manifest = json.loads((out / "aligned.json").read_text())
    manifest["languages"] = {"en": "sv.tlx", "sv": "en.tlx"}  # before: scored 0.000 on wrong texts
    (out / "aligned.json").write_text(json.dumps(manifest))
    cli_error(["cnpmi", topics, "--reference", out, "--top", "3"], "maps the languages to the wrong files")


@pytest.mark.parametrize("tamper, fragment", [
    ({"n_tuples": 7}, "the manifest says 7"),
    ({"n_tuples": "5"}, "must list two or more language files"),
    ({"n_tuples": True}, "must list two or more language files"),
    ({"languages": ["en", "sv"]}, "must list two or more language files"),
    ({"languages": {"en": "en.tlx"}}, "must list two or more language files"),
    ({"languages": {"en": "../x/en.tlx", "sv": "sv.tlx"}}, "is not a file name in the folder"),
    ({"format_version": 9}, "has format version 9"),
    ({"format": "other"}, "does not declare format"),
])
def test_tampered_manifest(aligned, cli_error, tamper, fragment):
    out, topics = aligned
    manifest = json.loads((out / "aligned.json").read_text())
    manifest.update(tamper)
    (out / "aligned.json").write_text(json.dumps(manifest))
    cli_error(["cnpmi", topics, "--reference", out, "--top", "3"], fragment)


@pytest.mark.parametrize("damage, fragment", [
    (lambda out: (out / "sv.tlx").unlink(), "sv.tlx' does not exist"),
    (lambda out: (out / "aligned.json").unlink(), "has no aligned.json"),
    (lambda out: (out / "aligned.json").write_text("{"), "aligned.json is not JSON"),
    (lambda out: (out / "aligned.json").write_text("[]"), "does not declare format"),
    (lambda out: open(out / "sv.tlx", "r+b").truncate(100), "truncated or corrupted"),
])
def test_damaged_reference_folder(aligned, cli_error, damage, fragment):
    out, topics = aligned
    damage(out)
    cli_error(["cnpmi", topics, "--reference", out, "--top", "3"], fragment)


def test_index_of_another_reference_swapped_in(aligned, tmp_path, cli_error, run_cli):
    out, topics = aligned
    other = tmp_path / "other"
    assert run_cli(["index", "build-aligned", _tuples(tmp_path, ROWS + [dict(ROWS[0], id="x")], "u.jsonl"),
                    "-o", other]).code == 0
    shutil.copy(other / "sv.tlx", out / "sv.tlx")
    cli_error(["cnpmi", topics, "--reference", out, "--top", "3"], "not one tuple-id space")


def test_index_over_the_same_tuples_in_another_order(aligned, tmp_path, cli_error, run_cli):
    # before: scored 0.0503 where the right folder gives 0.4514, exit 0 (same size, same language)
    from tealeaves.errors import InputFormatError
    from tealeaves.multilingual import load_aligned_reference

    out, topics = aligned
    other = tmp_path / "other"
    rows = [dict(r, id=f"d{i}") for i, r in enumerate(ROWS)]
    reordered = _tuples(tmp_path, rows[::-1], "u.jsonl")
    assert run_cli(["index", "build-aligned", reordered, "-o", other]).code == 0
    shutil.copy(other / "sv.tlx", out / "sv.tlx")
    cli_error(["cnpmi", topics, "--reference", out, "--n-top", "3"], "in another order than tuple_ids.txt")
    with pytest.raises(InputFormatError, match="another order"):
        load_aligned_reference(out)


@pytest.mark.parametrize("ids, fragment", [
    (None, "has no tuple id file"),
    ("d0\nd1\n", "lists 2 tuple ids, the manifest says 5"),
    ("d0\nd1\nd2\nd4\nd3\n", "in another order"),
])
def test_tuple_id_file_missing_short_or_reordered(aligned, cli_error, ids, fragment):
    out, topics = aligned
    if ids is None:
        (out / "tuple_ids.txt").unlink()
    else:
        (out / "tuple_ids.txt").write_text(ids)
    cli_error(["cnpmi", topics, "--reference", out, "--n-top", "3"], fragment)


def test_deeply_nested_manifest(aligned, cli_error):
    out, topics = aligned
    (out / "aligned.json").write_text(DEEP)  # before: exit 70 (RecursionError)
    cli_error(["cnpmi", topics, "--reference", out, "--top", "3"], "aligned.json is nested too deeply")


# -- languages spelled with aliases --------------------------------------------------------------------------
@pytest.fixture
def en_sv_ref(tmp_path, run_cli):
    rows = [{"id": i, "en": d, "sv": d.replace("cat", "katt").replace("dog", "hund")}
            for i, d in enumerate(DOCS)]
    res = run_cli(["index", "build-aligned", _jsonl(tmp_path / "es.jsonl", rows), "-o", tmp_path / "ref"])
    assert res.code == 0, res.err
    topics = _write(tmp_path / "k.json", json.dumps({"en": [["cat", "dog"]], "sv": [["katt", "hund"]]}))
    return tmp_path / "ref", topics


@pytest.mark.parametrize("languages, fragment", [
    # before: exit 0 with CNPMI 0.000 (the English words looked up in the Swedish index): the check that
    # the files hold their languages compared the manifest's keys as written, so aliases slipped past it
    ({"eng": "sv.tlx", "swe": "en.tlx"}, "the eng file 'sv.tlx' holds the sv index"),
    ({"EN": "sv.tlx", "SV": "en.tlx"}, "the EN file 'sv.tlx' holds the sv index"),
    ({"eng_Latn": "sv.tlx", "sv": "en.tlx"}, "the eng_Latn file 'sv.tlx' holds the sv index"),
    # before: the second key replaced the first ('en' read from sv.tlx), then "has no 'sv' side"
    ({"en": "en.tlx", "eng": "sv.tlx"}, "aligned.json names language 'en' twice ('en', 'eng')"),
])
def test_manifest_languages_spelled_with_aliases(en_sv_ref, cli_error, languages, fragment):
    ref, topics = en_sv_ref
    manifest = json.loads((ref / "aligned.json").read_text(encoding="utf-8"))
    manifest["languages"] = languages
    _write(ref / "aligned.json", json.dumps(manifest))
    cli_error(["cnpmi", topics, "--reference", ref, "--top", "2"], fragment)


def test_manifest_with_aliases_in_the_right_order_scores_as_written(en_sv_ref, run_cli):
    ref, topics = en_sv_ref
    before = run_cli(["cnpmi", topics, "--reference", ref, "--top", "2", "--format", "json"])
    manifest = json.loads((ref / "aligned.json").read_text(encoding="utf-8"))
    manifest["languages"] = {"eng": "en.tlx", "swe_Latn": "sv.tlx"}
    _write(ref / "aligned.json", json.dumps(manifest))
    after = run_cli(["cnpmi", topics, "--reference", ref, "--top", "2", "--format", "json"])
    assert after.code == before.code == 0, after.err
    docs = [set(d.split()) for d in DOCS]
    pairs = [("cat", "cat"), ("cat", "dog"), ("dog", "cat"), ("dog", "dog")]
    want = np.mean([brute_npmi_pair(docs, a, b) for a, b in pairs])
    for res in (before, after):
        assert json.loads(res.out)["cnpmi"]["per_topic"] == pytest.approx([want], abs=1e-12)
