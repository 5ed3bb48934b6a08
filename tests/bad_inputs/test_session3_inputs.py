"""Bad inputs of what session 3 changed: ``index build-aligned`` (tuples, ``--lang``, ``--dump``), aligned
reference folders read by ``cnpmi --reference``, the batched tokeniser of ``index build``, corrupted
``.tlx`` files, ``reproduce hao2018`` options and the frequent-pair coherence path.  Each case asserts a
clean error (exit code, ``tealeaves: error:``, a fragment), a documented value, or equality with an
independent computation."""
from __future__ import annotations

import json
import shutil

import pytest

ROWS = [{"id": f"d{i}", "en": "the cat sat on the mat dog", "sv": "katten satt på mattan hund"}
        for i in range(5)]


def _write(path, text):
    path.write_text(text, encoding="utf-8", newline="")
    return path


def _tuples(tmp_path, rows=ROWS, name="t.jsonl"):
    return _write(tmp_path / name, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


@pytest.fixture
def aligned(tmp_path, run_cli):
    """A small aligned reference folder (en, sv) and a topics file over it."""
    out = tmp_path / "ref"
    assert run_cli(["index", "build-aligned", _tuples(tmp_path), "-o", out]).code == 0
    topics = _write(tmp_path / "topics.json", json.dumps({"en": [["cat", "mat", "dog"]],
                                                          "sv": [["katten", "mattan", "hund"]]}))
    return out, topics


# -- build-aligned: --lang / --dump given twice, a missing dump -------------------------------------------
@pytest.mark.parametrize("option", ["--lang", "--dump"])
def test_option_given_twice_for_one_language(tmp_path, cli_error, option):
    en, sv = _write(tmp_path / "en.txt", "cat\ndog\n"), _write(tmp_path / "sv.txt", "katt\nhund\n")
    ids = _write(tmp_path / "ids.txt", "a\nb\n")
    if option == "--lang":  # before: the second en= silently replaced the first ("holds text in 1 language")
        argv = ["--lang", f"en={en}", "--lang", f"en={sv}", "--doc-ids", ids]
    else:  # before: the second en= silently replaced the first
        argv = ["--links", en, "--dump", f"en={en}", "--dump", f"en={sv}", "--dump", f"sv={sv}"]
    cli_error(["index", "build-aligned", *argv, "-o", tmp_path / "out"], f"{option} en= is given twice")


def test_missing_dump_is_not_called_corrupted(tmp_path, cli_error):
    # before: "input 'nope.xml' is truncated or corrupted (FileNotFoundError: ...)"
    sql = _write(tmp_path / "enwiki-latest-langlinks.sql",
                 "INSERT INTO `langlinks` VALUES (12,'sv','Anarkism');\n")
    dump = _write(tmp_path / "d.xml", "<mediawiki/>")
    result = cli_error(["index", "build-aligned", "--langlinks", sql, "--dump", f"en={tmp_path / 'nope.xml'}",
                        "--dump", f"sv={dump}", "-o", tmp_path / "out"], "nope.xml' does not exist")
    assert "corrupted" not in result.err


# -- cnpmi --reference: a tampered manifest ---------------------------------------------------------------
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


# -- build-aligned --lang / --doc-ids files ---------------------------------------------------------------
def test_missing_doc_id_file(tmp_path, cli_error):
    # before: "No such file or directory: ... (check the path, its permissions and the free disk space)"
    en, sv = _write(tmp_path / "en.txt", "cat\n"), _write(tmp_path / "sv.txt", "katt\n")
    cli_error(["index", "build-aligned", "--lang", f"en={en}", "--lang", f"sv={sv}", "--doc-ids",
               tmp_path / "nope.txt", "-o", tmp_path / "out"], "document-id file")
    cli_error(["index", "build-aligned", "--lang", f"en={en}", "--lang", f"sv={sv}", "--doc-ids",
               tmp_path, "-o", tmp_path / "out"], "is a folder, not a file")


@pytest.mark.parametrize("ids", ["a\n\n", "a\n \n", "\na\n"])
def test_blank_doc_id_line_says_it_was_skipped(tmp_path, cli_error, ids):
    en, sv = _write(tmp_path / "en.txt", "cat\ndog\n"), _write(tmp_path / "sv.txt", "katt\nhund\n")
    cli_error(["index", "build-aligned", "--lang", f"en={en}", "--lang", f"sv={sv}", "--doc-ids",
               _write(tmp_path / "ids.txt", ids), "-o", tmp_path / "out"],
              "blank lines of the document-id file are skipped")


# -- an empty -o ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["index build", "index build-aligned", "build-aligned-reference",
                                     "pltm fit"])
@pytest.mark.parametrize("out", ["", "  "])
def test_empty_output_path(tmp_path, cli_error, monkeypatch, command, out):
    # before: `index build -o ''` exit 70 (PosixPath('.') has an empty name); `pltm fit -o ''` wrote the
    # model files into the current folder
    monkeypatch.chdir(tmp_path)
    inp = _tuples(tmp_path)
    cli_error([*command.split(), inp, "-o", out], "-o must be a path", code=2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.jsonl"]
