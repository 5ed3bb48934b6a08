"""Bad reference-index files: each is refused with IndexIntegrityError naming the file and the inconsistency.

Structural cases are *re-stamped* (the SHA-256 recomputed after the change), so that the checksum
cannot be what catches them: the structural checks of ``ReferenceIndex.load`` must.
"""

from __future__ import annotations

import importlib.util
import json
import os
import struct
from pathlib import Path

import numpy as np
import pytest

from tealeaves.corpus import Corpus
from tealeaves.errors import IndexIntegrityError, InputNotFoundError, OutputError, TealeavesError
from tealeaves.index import ReferenceIndex, build_index, index_from_token_lists

_spec = importlib.util.spec_from_file_location(
    "index_fuzz", Path(__file__).resolve().parents[2] / "benchmarks" / "index_fuzz.py")
fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)

#: words oil(0) gas(1) price(2) rise(3); word_ptr [0 2 4 6 7], post_docs [0 2 | 0 1 | 1 2 | 2],
#: pos_ptr [0 2 3 4 5 6 7 8], positions [0 2 | 0 | 1 | 0 | 1 | 1 | 2], doc_lengths [3 2 3]
DOCS = [["oil", "gas", "oil"], ["gas", "price"], ["oil", "price", "rise"]]
FIX = "(rebuild it with `tealeaves index build`)"


@pytest.fixture
def good(tmp_path) -> bytes:
    ix = index_from_token_lists(DOCS, name="small")
    assert ix.arrays["word_ptr"].tolist() == [0, 2, 4, 6, 7]
    assert ix.arrays["positions"].tolist() == [0, 2, 0, 1, 0, 1, 1, 2]
    return ix.save(tmp_path / "good.tlx").read_bytes()


@pytest.fixture
def sparse(tmp_path) -> bytes:
    """The same documents in slots 0, 2 and 3 of a four-slot id space (slot 1 absent)."""
    ix = build_index(Corpus.from_token_lists(DOCS), name="sparse", doc_ids=[0, 2, 3], n_space=4)
    assert ix.arrays["present"].tolist() == [1, 0, 1, 1]
    return ix.save(tmp_path / "sparse.tlx").read_bytes()


def _write(tmp_path: Path, data: bytes, name: str = "bad.tlx") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _refused(path: Path, fragment: str, verify: bool = True) -> str:
    with pytest.raises(IndexIntegrityError) as info:
        ReferenceIndex.load(path, verify=verify)
    message = str(info.value)
    assert str(path) in message and fragment in message, message
    return message


def _arrays_edit(raw: bytes, edit) -> bytes:
    """``raw`` with ``edit(header, arrays)`` applied, re-serialised (so with a valid checksum)."""
    header, arrays, _ = fuzz.split(raw)
    edit(header, arrays)
    return fuzz.serialise(header, arrays)


def _header_edit(raw: bytes, edit) -> bytes:
    """``raw`` with ``edit(header)`` applied to its JSON header in place, re-stamped."""
    header, _, hlen = fuzz.split(raw)
    header = edit(header) or header
    return fuzz.restamp(fuzz.with_header(raw, header, hlen))


def _set(name: str, index: int, value: int):
    def edit(header, arrays):
        arrays[name][index] = value
    return edit


# --------------------------------------------------------------------------------------------
# the prefix and the checksum
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("size, fragment", [(0, "is truncated (0 bytes"), (30, "is truncated (30 bytes")])
def test_empty_or_shorter_than_the_prefix(tmp_path, good, size, fragment):
    message = _refused(_write(tmp_path, good[:size]), fragment)
    assert message.endswith(FIX)


@pytest.mark.parametrize("offset, value, fragment", [
    (0, b"XLXINDEX", "is not a tealeaves reference index (bad magic bytes)"),
    (8, struct.pack("<I", 2), "has index format version 2; this tealeaves reads version 1"),
    (12, struct.pack("<I", 7), "has 7 in its reserved prefix field (expected 0)"),
    (16, struct.pack("<Q", 2**40), "declares a 1099511627776-byte header but holds only"),
])
def test_bad_prefix(tmp_path, good, offset, value, fragment):
    data = bytearray(good)
    data[offset:offset + len(value)] = value
    _refused(_write(tmp_path, fuzz.restamp(data)), fragment)


def test_checksum_mismatch_is_caught_and_verify_false_still_checks_the_structure(tmp_path, good):
    header, _, _ = fuzz.split(good)
    spec = next(s for s in header["arrays"] if s["name"] == "word_ptr")
    data = bytearray(good)
    # word_ptr [0 5 4 6 7], not re-stamped
    data[spec["offset"] + 8:spec["offset"] + 16] = struct.pack("<q", 5)
    path = _write(tmp_path, bytes(data))
    _refused(path, "checksum mismatch in")
    _refused(path, "has word_ptr decreasing at entry 1 (5 -> 4)", verify=False)


def test_truncated_or_extended_file_restamped(tmp_path, good):
    _refused(_write(tmp_path, fuzz.restamp(good[:-64]), "short.tlx"),
             f"is {len(good) - 64} bytes but its header says {len(good)}")
    _refused(_write(tmp_path, fuzz.restamp(good + b"\0" * 64), "long.tlx"),
             f"is {len(good) + 64} bytes but its header says {len(good)}")


# --------------------------------------------------------------------------------------------
# the JSON header
# --------------------------------------------------------------------------------------------
def test_header_not_utf8_or_not_json(tmp_path, good):
    data = bytearray(good)
    data[fuzz.PREFIX.size] = 0xFF
    _refused(_write(tmp_path, fuzz.restamp(data), "latin.tlx"),
             "has an unreadable header (UnicodeDecodeError")
    data[fuzz.PREFIX.size] = ord("]")
    _refused(_write(tmp_path, fuzz.restamp(data), "json.tlx"), "has an unreadable header (JSONDecodeError")


@pytest.mark.parametrize("edit, fragment", [
    (lambda h: [h], "has a header that is a JSON list, not an object"),
    (lambda h: h.pop("n_words") and None, "has no 'n_words' in its header"),
    (lambda h: h.update(n_tokens=-1), "has n_tokens=-1 in its header (expected an integer from 0 to 2**62)"),
    (lambda h: h.update(n_documents=True), "has n_documents=True in its header"),
    (lambda h: h.update(n_words=5.0), "has n_words=5.0 in its header"),
    (lambda h: h.update(tokenization=["lowercase"]), "has tokenization=['lowercase'] in its header "
                                                      "(expected an object)"),
    (lambda h: h.update(n_present=0), "holds n_present=0 documents in an id space of n_documents=3"),
    (lambda h: h.update(format_version=2), "has format_version 2 in its header but 1 in its prefix"),
    (lambda h: h.update(n_words=5), "has 5 entries in array 'vocab_offsets' where its counts imply 6"),
    (lambda h: h.update(arrays=h["arrays"][:-1]), "lists 9 arrays in its header (expected the 10 arrays"),
])
def test_bad_header_fields(tmp_path, good, edit, fragment):
    _refused(_write(tmp_path, _header_edit(good, edit)), fragment)


def _spec_edit(array: str, name_: str | None = None, **changes):
    """Change fields of one array's entry (and the index name, to keep the header's length)."""
    def edit(header):
        next(s for s in header["arrays"] if s["name"] == array).update(changes)
        if name_ is not None:
            header["name"] = name_
    return edit


@pytest.mark.parametrize("edit, fragment", [
    (_spec_edit("post_docs", dtype="<i8"), "gives array 'post_docs' dtype '<i8' (expected '<i4')"),
    (_spec_edit("positions", dtype=">i4"), "gives array 'positions' dtype '>i4' (expected '<i4')"),
    (_spec_edit("word_ptr", shape=[5, 1]), "gives array 'word_ptr' shape [5, 1] (expected [length])"),
    (_spec_edit("word_ptr", offset=8), "places array 'word_ptr' at offset 8 (expected a multiple of 64"),
    (_spec_edit("positions", shape=[10**4], name_="s"), "places array 'positions' at bytes"),
    (_spec_edit("vocab_blob", name="words"), "lists array 'words' where the format has 'vocab_blob'"),
])
def test_bad_array_specs(tmp_path, good, edit, fragment):
    _refused(_write(tmp_path, _header_edit(good, edit)), fragment)


def test_overlapping_arrays_are_refused(tmp_path, good):
    def overlap(header):
        specs = {s["name"]: s for s in header["arrays"]}
        specs["post_docs"]["offset"] = specs["word_ptr"]["offset"]
    _refused(_write(tmp_path, _header_edit(good, overlap)), "places array 'post_docs' at offset")


# --------------------------------------------------------------------------------------------
# the arrays (re-serialised: the layout and checksum are valid, the content is not)
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("edit, fragment", [
    (_set("word_ptr", 1, 5), "has word_ptr decreasing at entry 1 (5 -> 4)"),
    (_set("word_ptr", 4, 6), "has word_ptr running from 0 to 6 (expected 0 to 7, the length of post_docs)"),
    (_set("post_docs", 0, 7), "has postings naming document slots 0 to 7 (expected 0 to 2)"),
    (_set("post_docs", 1, 0), "has documents of a word that are not strictly increasing (entry 1: 0 then 0)"),
    (_set("pos_ptr", 1, 0), "has pos_ptr not increasing (an empty run) at entry 0 (0 -> 0)"),
    (_set("positions", 2, 3), "has a token position outside its document"),
    (_set("positions", 2, -1), "has a token position outside its document"),
    (_set("positions", 1, 0), "has positions within a posting that are not strictly increasing"),
    (_set("positions", 3, 0), "has two words at the same position of one document"),
    (_set("doc_lengths", 0, 4), "has document lengths summing to 9 but its header says n_tokens=8"),
    (_set("doc_lengths", 1, -1), "has document lengths from -1 to 3"),
    (_set("present", 0, 2), "has the value 2 in 'present' (expected 0 or 1)"),
    (_set("vocab_blob", 0, 0xFF), "has words that are not valid UTF-8"),
    (_set("vocab_offsets", 1, 100), "has words offsets decreasing at entry 1 (100 -> 6)"),
    (_set("docid_blob", 0, 0xC3), "has document ids that are not valid UTF-8"),
])
def test_inconsistent_arrays(tmp_path, good, edit, fragment):
    message = _refused(_write(tmp_path, _arrays_edit(good, edit)), fragment)
    assert message.endswith(FIX)


def test_repeated_word(tmp_path, good):
    def rename(header, arrays):  # "gas" -> "oil"
        arrays["vocab_blob"][3:6] = np.frombuffer(b"oil", dtype=np.uint8)
    _refused(_write(tmp_path, _arrays_edit(good, rename)), "has a repeated word (vocabulary has duplicate "
                                                           "words: ['oil'])")


def test_truncated_array(tmp_path, good):
    def cut(header, arrays):
        arrays["positions"] = arrays["positions"][:-1]
    _refused(_write(tmp_path, _arrays_edit(good, cut)), "has pos_ptr running from 0 to 8 (expected 0 to 7")


@pytest.mark.parametrize("edit, fragment", [
    (_set("post_docs", 2, 1), "has postings naming an absent document slot"),
    (_set("present", 1, 1), "marks 4 slots present but its header says n_present=3"),
    (lambda h, a: (a["doc_lengths"].__setitem__(1, 2), h.update(n_tokens=10)),
     "gives a non-zero length to an absent document slot"),
])
def test_absent_slots(tmp_path, sparse, edit, fragment):
    _refused(_write(tmp_path, _arrays_edit(sparse, edit)), fragment)


# --------------------------------------------------------------------------------------------
# paths, saving, and the command line
# --------------------------------------------------------------------------------------------
def test_missing_path_and_folder(tmp_path):
    with pytest.raises(InputNotFoundError, match="index file '.*nope.tlx' does not exist"):
        ReferenceIndex.load(tmp_path / "nope.tlx")
    with pytest.raises(TealeavesError, match="is a folder, not a file"):
        ReferenceIndex.load(tmp_path)


def test_save_onto_a_folder_is_a_clean_error(tmp_path):
    (tmp_path / "out.tlx").mkdir()
    with pytest.raises(OutputError, match="index file '.*out.tlx' is a folder"):
        index_from_token_lists(DOCS).save(tmp_path / "out.tlx")


@pytest.mark.parametrize("target, fragment", [
    ("missing", "does not exist"), ("folder", "is a folder, not a file"),
    ("text", "is not a tealeaves reference index (bad magic bytes)"),
    ("restamped", "has two words at the same position of one document"),
])
def test_index_info_errors(tmp_path, good, cli_error, target, fragment):
    paths = {"missing": tmp_path / "nope.tlx", "folder": tmp_path,
             "text": _write(tmp_path, b"oil gas\n", "topics.txt"),
             "restamped": _write(tmp_path, _arrays_edit(good, _set("positions", 3, 0)))}
    cli_error(["index", "info", paths[target]], fragment)
    cli_error(["index", "info", "--verify", paths[target]], fragment)


def test_index_info_verify_reports_verified(tmp_path, good, run_cli, monkeypatch):
    monkeypatch.setenv("TEALEAVES_CACHE_DIR", str(tmp_path / "cache"))
    path = _write(tmp_path, good, "good.tlx")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - 60 * 10**9))  # (not written in the last 2 s)
    text = run_cli(["index", "info", "--verify", path])
    assert text.code == 0 and f"verified: {path} passed the checksum and every structural check" in text.out
    js = run_cli(["index", "info", "--verify", "--format", "json", path])
    assert js.code == 0 and json.loads(js.out)["verified"] is True
    plain = json.loads(run_cli(["index", "info", "--format", "json", path]).out)  # from the record
    assert plain["verified"] is True and plain["checked_at_open"] == "header and vocabulary"
    assert plain["open_bytes"] == plain["verified_open_bytes"] < plain["verify_bytes"] == len(good)
    assert plain["n_positions"] == sum(len(d) for d in DOCS)


def test_coherence_on_a_restamped_bad_index(tmp_path, good, cli_error):
    topics = tmp_path / "topics.txt"
    topics.write_text("oil gas price\n", encoding="utf-8")
    bad = _write(tmp_path, _arrays_edit(good, _set("post_docs", 0, 7)))
    cli_error(["coherence", "--reference", bad, "--topics", topics],
              "has postings naming document slots 0 to 7")


def test_a_fifo_is_refused_without_blocking(tmp_path):
    os.mkfifo(tmp_path / "pipe.tlx")
    with pytest.raises(TealeavesError, match="is not a regular file"):
        ReferenceIndex.load(tmp_path / "pipe.tlx")


# -- truncated files and flipped bytes in every region -------------------------------------------------------
@pytest.fixture(scope="module")
def tlx_bytes(tmp_path_factory):
    from tealeaves.corpus.corpus import Corpus
    from tealeaves.index import build_index

    docs = [["cat", "dog", "mat"], ["cat", "sat"], ["dog"] * 5, ["mat", "hat", "cat", "bat"]] * 3
    path = tmp_path_factory.mktemp("tlx") / "r.tlx"
    build_index(Corpus.from_token_lists(docs), name="r").save(path)
    return path.read_bytes()


def _load_damaged(tmp_path, data):
    from tealeaves.errors import IndexIntegrityError
    from tealeaves.index import ReferenceIndex

    path = tmp_path / "bad.tlx"
    path.write_bytes(data)
    with pytest.raises(IndexIntegrityError):
        ReferenceIndex.load(path)


@pytest.mark.parametrize("fraction", [0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99])
def test_truncated_index(tmp_path, tlx_bytes, fraction):
    _load_damaged(tmp_path, tlx_bytes[:int(len(tlx_bytes) * fraction)])


@pytest.mark.parametrize("part", range(16))
def test_flipped_bytes_in_every_region(tmp_path, tlx_bytes, part):
    """One flipped byte in each sixteenth of the file (header, every array region, the checksum)."""
    n = len(tlx_bytes)
    for i in range(part * n // 16, (part + 1) * n // 16, max(1, n // 160)):
        data = bytearray(tlx_bytes)
        data[i] ^= 0xFF
        _load_damaged(tmp_path, bytes(data))
