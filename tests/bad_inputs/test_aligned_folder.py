"""The aligned reference folder read and written by the library (``tealeaves.index.load_aligned_index``,
``build_aligned_index``) and the ``tealeaves.ingest.aligned`` readers: a tampered manifest, languages mapped
to one file, missing or odd files, and two builds writing the same output at once.

API cases assert the error class and a fragment; CLI cases the exit code and a fragment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROWS
from conftest import write_text as _write
from conftest import write_tuples as _tuples
from tealeaves.errors import InputEncodingError, InputFormatError, InputNotFoundError, TealeavesError
from tealeaves.index import build_aligned_index, load_aligned_index

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("aligned_folder")
    out = root / "ref"
    build_aligned_index([_tuples(root)], out)
    return out


@pytest.fixture
def ref(built, tmp_path):
    import shutil

    return Path(shutil.copytree(built, tmp_path / "ref"))


def _manifest(ref: Path, **changes) -> None:
    manifest = json.loads((ref / "aligned.json").read_text())
    manifest.update(changes)
    (ref / "aligned.json").write_text(json.dumps(manifest))


def test_load_round_trip(ref):
    index, name = load_aligned_index(ref)
    assert sorted(index.indices) == ["en", "sv"] and name


@pytest.mark.parametrize("changes, fragment", [
    ({"n_tuples": -1}, "the manifest says -1"),
    ({"n_tuples": 2 ** 70}, "the manifest says"),
    ({"n_tuples": None}, "must list two or more language files"),
    ({"languages": {"en": "en.tlx", "sv": "en.tlx"}}, "maps the languages to the wrong files"),
    ({"languages": {"en": "en.tlx", "eng": "sv.tlx"}}, "names language 'en' twice"),
    ({"languages": {"en": 3, "sv": "sv.tlx"}}, "is not a file name in the folder"),
    ({"languages": {"en": "", "sv": "sv.tlx"}}, "is not a file name in the folder"),
    ({"languages": {"en": "/etc/passwd", "sv": "sv.tlx"}}, "is not a file name in the folder"),
    ({"languages": {"en": "absent.tlx", "sv": "sv.tlx"}}, "does not exist"),
    ({"languages": {"en": "aligned.json", "sv": "sv.tlx"}}, ""),
    ({"format_version": "1"}, "has format version '1'"),
])
def test_tampered_manifest(ref, changes, fragment):
    _manifest(ref, **changes)
    with pytest.raises(TealeavesError) as info:
        load_aligned_index(ref)
    assert fragment in str(info.value)


@pytest.mark.parametrize("damage, cls, fragment", [
    (lambda r: (r / "aligned.json").write_bytes(b'{"format": "\xff"}'), InputEncodingError, "utf-8"),
    (lambda r: (r / "aligned.json").write_text(""), InputFormatError, "aligned.json is not JSON"),
    (lambda r: (r / "aligned.json").write_text("[" * 100_000), InputFormatError, "aligned.json"),
    (lambda r: ((r / "aligned.json").unlink(), (r / "aligned.json").mkdir()), InputFormatError,
     "has no aligned.json"),
    (lambda r: ((r / "sv.tlx").unlink(), (r / "sv.tlx").mkdir()), TealeavesError, "sv.tlx"),
    (lambda r: (r / "sv.tlx").write_bytes(b""), TealeavesError, "sv.tlx"),
])
def test_damaged_folder(ref, damage, cls, fragment):
    damage(ref)
    with pytest.raises(cls) as info:
        load_aligned_index(ref)
    assert fragment in str(info.value)


@pytest.mark.parametrize("path, cls, fragment", [
    ("absent", InputNotFoundError, "does not exist"),
    ("file.txt", InputFormatError, "it is a file, not a folder"),
    ("empty", InputFormatError, "has no aligned.json"),
])
def test_not_a_folder(tmp_path, path, cls, fragment):
    _write(tmp_path / "file.txt", "x")
    (tmp_path / "empty").mkdir()
    with pytest.raises(cls, match=fragment):
        load_aligned_index(tmp_path / path)


@pytest.mark.parametrize("content, cls, fragment", [
    ("", TealeavesError, ""),
    ('{"id": "a", "en": "x"\n', InputFormatError, "JSON"),
    (b'{"id": "a", "en": "\xff", "sv": "x"}\n', InputEncodingError, "not valid utf-8"),
    ('{"id": "a", "en": NaN, "sv": "x"}\n', InputFormatError, ""),
    ('{"id": "a", "en": 3, "sv": "x"}\n', InputFormatError, ""),
])
def test_build_aligned_index_bad_tuples(tmp_path, content, cls, fragment):
    path = tmp_path / "t.jsonl"
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    with pytest.raises(cls) as info:
        build_aligned_index([path], tmp_path / "out")
    assert fragment in str(info.value)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("inputs, fragment", [
    (lambda p: [p / "absent.jsonl"], "does not exist"),
    (lambda p: [p], "folder"),
    (lambda p: [], ""),
])
def test_build_aligned_index_bad_inputs(tmp_path, inputs, fragment):
    with pytest.raises(TealeavesError) as info:
        build_aligned_index(inputs(tmp_path), tmp_path / "out")
    assert fragment in str(info.value)


def test_ingest_readers(tmp_path):
    from tealeaves.ingest.aligned import read_jsonl_tuples, read_parallel_files

    with pytest.raises(InputNotFoundError):
        read_jsonl_tuples(tmp_path / "absent.jsonl")
    with pytest.raises(TealeavesError):
        read_parallel_files({"en": tmp_path / "absent.txt", "sv": tmp_path / "absent.txt"},
                            tmp_path / "ids.txt")
    _write(tmp_path / "en.txt", "a\nb\n")
    _write(tmp_path / "sv.txt", "c\n")
    _write(tmp_path / "ids.txt", "1\n2\n")
    with pytest.raises(TealeavesError):  # one line short
        read_parallel_files({"en": tmp_path / "en.txt", "sv": tmp_path / "sv.txt"}, tmp_path / "ids.txt")


# -- two builds writing the same output ----------------------------------------------------------------
def _cli(*argv: object) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.Popen([sys.executable, "-m", "tealeaves", *map(str, argv)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _finish(*procs: subprocess.Popen) -> list[tuple[int, str]]:
    out = []
    for p in procs:
        _, err = p.communicate(timeout=120)
        out.append((p.returncode, err))
    return out


def test_two_index_builds_to_one_output(tmp_path):
    lines = (f"w{i % 97} w{i % 89} w{i % 83} w{i % 7}\n" for i in range(20_000))
    big = _write(tmp_path / "big.txt", "".join(lines))
    small = _write(tmp_path / "small.txt", "the cat sat\n")
    results = _finish(_cli("index", "build", big, "-o", tmp_path / "same.tlx"),
                      _cli("index", "build", small, "--out", tmp_path / "same.tlx"))
    for code, err in results:
        assert code in (0, 1) and "Traceback" not in err, err
    from tealeaves.index import ReferenceIndex

    index = ReferenceIndex.load(tmp_path / "same.tlx", verify=True)  # one whole index, not a mix
    assert index.n_documents in (1, 20_000)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.txt", "same.tlx", "small.txt"]


def test_two_aligned_builds_to_one_folder(tmp_path):
    many = _tuples(tmp_path, [dict(r, id=f"{r['id']}-{i}") for i in range(300) for r in ROWS], "many.jsonl")
    few = _tuples(tmp_path, ROWS, "few.jsonl")
    results = _finish(_cli("index", "build-aligned", many, "-o", tmp_path / "ref"),
                      _cli("index", "build-aligned", few, "--out", tmp_path / "ref"))
    for code, err in results:
        assert code in (0, 1) and "Traceback" not in err, err
    index, _ = load_aligned_index(tmp_path / "ref")  # loads: both languages from one build
    assert len({ix.n_documents for ix in index.indices.values()}) == 1
