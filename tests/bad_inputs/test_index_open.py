"""Opening a reference index with its verification on record: files changed after they were verified or
opened, and a verified-state cache that is corrupt, unwritable or out of reach.

An open of a file whose checksum and structural checks are recorded (``tealeaves.index.cache``) checks
only its header and vocabulary, so every case here asserts that a file changed since is checked whole
again (or refused before a count reads it), and that a cache that cannot be read or written only costs
a new verification: each command succeeds with the scores of the same corpus indexed in memory, or
fails with one ``tealeaves: error:`` line.  Commands run in this process with its verified-state cache
emptied first (as a new process starts), those marked ``cli_subprocess`` in a subprocess, and the
changes between an open and a count in a Python subprocess (a read past the end of a truncated memory
map would end the process).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import DOCS
from conftest import write_text as _write
from conftest import write_topics as _topics
from tealeaves.errors import IndexIntegrityError
from tealeaves.index import ReferenceIndex, index_from_token_lists
from tealeaves.index import cache as verified_cache
from tealeaves.index.format import read_header

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A private verified-state cache folder (inherited by the subprocesses); the process cache emptied."""
    monkeypatch.setenv("TEALEAVES_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("TEALEAVES_VERIFY_CACHE", raising=False)
    verified_cache._VERIFIED.clear()
    yield tmp_path / "cache"
    verified_cache._VERIFIED.clear()


@pytest.fixture
def run_cli(run_cli):
    """``run_cli`` as a new process would run: nothing verified in this process yet."""
    def run(argv):
        verified_cache._VERIFIED.clear()
        return run_cli(argv)
    return run


@pytest.fixture
def ref(tmp_path, run_cli, home) -> Path:
    """An index of :data:`DOCS` built by the command line, aged (so it can be recorded) and verified."""
    src = _write(tmp_path / "docs.txt", "".join(d + "\n" for d in DOCS))
    path = tmp_path / "ref.tlx"
    assert run_cli(["index", "build", src, "-o", path]).code == 0
    _age(path)
    info = _info(run_cli, path)
    assert info["checked_at_open"] == "checksum and every check"
    assert _info(run_cli, path)["checked_at_open"] == "header and vocabulary"  # recorded
    return path


def _age(path: Path) -> None:
    """Set the modification time a minute back (a file written in the last 2 s is never recorded)."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - 60 * 10**9))


def _info(run_cli, path: Path) -> dict:
    res = run_cli(["index", "info", path, "--format", "json"])
    assert res.code == 0, res.err
    return json.loads(res.out)


def _scores(run_cli, reference: Path, tmp_path: Path) -> list[float]:
    res = run_cli(["coherence", "--reference", reference, "--topics", _topics(tmp_path), "--window", "3",
                   "--format", "json"])
    assert res.code == 0, res.err
    return [t["score"] for t in json.loads(res.out)["topics"]]


def _in_memory_scores(run_cli, tmp_path: Path) -> list[float]:
    """The scores against the corpus itself, indexed in memory (no file, no cache)."""
    return _scores(run_cli, tmp_path / "docs.txt", tmp_path)


def _rewrite_in_place(path: Path, data: bytes, restore_mtime: bool) -> None:
    """Write ``data`` over ``path`` (same inode), its modification time set back if asked."""
    st = path.stat()
    with open(path, "r+b") as fh:
        fh.write(data)
        fh.truncate(len(data))
    if restore_mtime:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _forged(path: Path) -> bytes:
    """The file with its first posting naming document slot 999 and its checksum re-stamped to match."""
    import hashlib

    spec = {s["name"]: s for s in read_header(path)["arrays"]}["post_docs"]
    data = bytearray(path.read_bytes())
    data[spec["offset"]:spec["offset"] + 4] = np.int32(999).tobytes()
    data[24:56] = hashlib.sha256(bytes(data[56:])).digest()
    return bytes(data)


# -- a file changed after it was verified -----------------------------------------------------------------
@pytest.mark.parametrize("restore_mtime", [
    pytest.param(True, marks=pytest.mark.cli_subprocess), False])
def test_verified_file_overwritten_with_same_size_is_checked_again(ref, run_cli, cli_error, tmp_path,
                                                                  restore_mtime):
    # the same size and (restored) modification time: the change time still differs, so the key does
    _rewrite_in_place(ref, _forged(ref), restore_mtime)
    cli_error(["index", "info", ref], "has postings naming document slots")
    cli_error(["coherence", "--reference", ref, "--topics", _topics(tmp_path)],
              "has postings naming document slots")
    with pytest.raises(IndexIntegrityError, match="has postings naming document slots"):
        ReferenceIndex.load(ref, verify=False)


def test_verified_file_overwritten_with_unstamped_bytes_is_refused(ref, cli_error, tmp_path):
    data = bytearray(ref.read_bytes())
    data[-1] ^= 0xFF  # the last padding byte: no check but the checksum sees it
    _rewrite_in_place(ref, bytes(data), restore_mtime=True)
    cli_error(["coherence", "--reference", ref, "--topics", _topics(tmp_path)], "checksum mismatch")
    with pytest.raises(IndexIntegrityError, match="checksum mismatch"):
        ReferenceIndex.load(ref)


def test_verified_file_truncated_is_refused(ref, cli_error, tmp_path):
    size = ref.stat().st_size
    os.truncate(ref, size - 64)
    cli_error(["index", "info", ref], "checksum mismatch")
    cli_error(["coherence", "--reference", ref, "--topics", _topics(tmp_path)], "checksum mismatch")
    with pytest.raises(IndexIntegrityError, match=f"is {size - 64} bytes but its header says {size}"):
        ReferenceIndex.load(ref, verify=False)


def test_verified_file_unchanged_scores_from_the_record(ref, run_cli, tmp_path):
    assert _scores(run_cli, ref, tmp_path) == _in_memory_scores(run_cli, tmp_path)
    os.utime(ref)  # touched: verified again, same scores
    assert _info(run_cli, ref)["checked_at_open"] == "checksum and every check"
    assert _scores(run_cli, ref, tmp_path) == _in_memory_scores(run_cli, tmp_path)


# -- a file changed between its open and its use ----------------------------------------------------------
CHANGE_AFTER_OPEN = """
import os, sys
from tealeaves.coherence import Coherence
from tealeaves.errors import IndexIntegrityError
from tealeaves.index import ReferenceIndex
path, how = sys.argv[1], sys.argv[2]
ix = ReferenceIndex.load(path)
before = Coherence("npmi", window=3).score([["cat", "dog", "mat"]], ix).scores
if how == "truncate":
    os.truncate(path, 4096)
elif how == "overwrite":
    with open(path, "r+b") as fh:
        fh.seek(os.path.getsize(path) - 1)
        fh.write(b"x")
elif how == "replace":
    with open(path + ".new", "wb") as fh:
        fh.write(b"not an index")
    os.replace(path + ".new", path)
elif how == "remove":
    os.remove(path)
try:
    after = Coherence("npmi", window=3).score([["cat", "dog", "mat"]], ix).scores
except IndexIntegrityError as exc:
    print("refused:", exc)
    sys.exit(3)
print("same" if after == before else f"different {before} {after}")
"""


@pytest.mark.parametrize("how, code, out", [
    ("truncate", 3, "changed on disk since it was opened"),  # before: a read past the end (SIGBUS)
    ("overwrite", 3, "changed on disk since it was opened"),
    ("replace", 0, "same"),  # a new inode: the maps keep the file opened
    ("remove", 0, "same"),
])
def test_index_changed_between_open_and_use(ref, how, code, out):
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    run = subprocess.run([sys.executable, "-c", CHANGE_AFTER_OPEN, str(ref), how], env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == code and out in run.stdout, (run.returncode, run.stdout, run.stderr)
    assert "Traceback" not in run.stderr


# -- the verified-state cache itself ----------------------------------------------------------------------
@pytest.mark.parametrize("content", ["{not json", "[1, 2]", "\udcff"])
def test_corrupt_cache_file_costs_only_a_new_verification(ref, run_cli, tmp_path, home, content):
    (home / "verified-indexes.json").write_text(content, encoding="utf-8", errors="surrogateescape")
    assert _info(run_cli, ref)["checked_at_open"] == "checksum and every check"
    assert _scores(run_cli, ref, tmp_path) == _in_memory_scores(run_cli, tmp_path)
    assert _info(run_cli, ref)["checked_at_open"] == "header and vocabulary"  # rewritten, readable


def test_cache_entry_of_another_kind_is_not_trusted(ref, run_cli, home):
    """Entries whose facts are not the expected strings and version (hand-edited) verify the file again."""
    cache_file = home / "verified-indexes.json"
    entries = json.loads(cache_file.read_text(encoding="utf-8"))
    for name in entries:
        entries[name] = {"sha256": True, "checks": "1"}
    cache_file.write_text(json.dumps(entries), encoding="utf-8")
    assert _info(run_cli, ref)["checked_at_open"] == "checksum and every check"


@pytest.mark.parametrize("where", ["a file", pytest.param("under a file", marks=pytest.mark.cli_subprocess),
                                   "proc"])
def test_unwritable_cache_folder_costs_only_a_new_verification(tmp_path, run_cli, monkeypatch, where):
    blocker = _write(tmp_path / "blocker", "a file, not a folder")
    folder = {"a file": blocker, "under a file": blocker / "cache", "proc": Path("/proc/tealeaves-cache")}
    monkeypatch.setenv("TEALEAVES_CACHE_DIR", str(folder[where]))
    _write(tmp_path / "docs.txt", "".join(d + "\n" for d in DOCS))
    path = tmp_path / "ref.tlx"
    assert run_cli(["index", "build", tmp_path / "docs.txt", "-o", path]).code == 0
    _age(path)
    for _ in range(2):  # nothing recorded: each command checks the file whole
        assert _info(run_cli, path)["checked_at_open"] == "checksum and every check"
    assert _scores(run_cli, path, tmp_path) == _in_memory_scores(run_cli, tmp_path)
    assert blocker.read_text(encoding="utf-8") == "a file, not a folder"


def test_read_only_home_without_cache_settings(tmp_path, run_cli, monkeypatch):
    """``HOME`` on a read-only file system (and no ``XDG_CACHE_HOME`` or ``TEALEAVES_CACHE_DIR``)."""
    for name in ("TEALEAVES_CACHE_DIR", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", "/proc/self/tealeaves-home")
    _write(tmp_path / "docs.txt", "".join(d + "\n" for d in DOCS))
    path = tmp_path / "ref.tlx"
    assert run_cli(["index", "build", tmp_path / "docs.txt", "-o", path]).code == 0
    _age(path)
    assert _info(run_cli, path)["checked_at_open"] == "checksum and every check"
    assert _scores(run_cli, path, tmp_path) == _in_memory_scores(run_cli, tmp_path)


def test_in_memory_index_needs_no_file_check():
    ix = index_from_token_lists([d.split() for d in DOCS])
    ix.check_unchanged()  # nothing to compare: no file
    assert ix.opened is None
