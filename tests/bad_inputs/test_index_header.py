"""The header of a reference index (``.tlx``): an index built before the ``segmentation`` field loads and
scores as before; a malformed or hand-edited ``segmentation``, or a number out of the float range, is
refused by ``index info`` and ``coherence``.

Each case asserts a clean error (exit code, ``tealeaves: error:`` and a fragment, no traceback), or a result
equal to an independent computation.  A comment "before:" says what the case did before its fix."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from conftest import DOCS, FULL
from conftest import write_text as _write
from conftest import write_topics as _topics


# -- an index without the segmentation field -----------------------------------------------------------------
@pytest.fixture
def fresh(tmp_path, run_cli):
    src = _write(tmp_path / "docs.txt", "".join(d + "\n" for d in DOCS))
    assert run_cli(["index", "build", src, "-o", tmp_path / "new.tlx"]).code == 0
    return tmp_path / "new.tlx"


def _rewrite(index_path, out, **changes):
    """The index re-saved with header fields changed (None: removed), checksum recomputed."""
    from tealeaves.index import ReferenceIndex

    base = ReferenceIndex.load(index_path)
    header = dict(base.header)
    for key, value in changes.items():
        header.pop(key, None) if value is None else header.__setitem__(key, value)
    ReferenceIndex(dict(base.arrays), header).save(out)
    return out


def test_index_without_segmentation_loads_and_scores_the_same(fresh, tmp_path, run_cli):
    old = _rewrite(fresh, tmp_path / "old.tlx", segmentation=None)  # as every index built before today
    topics = _topics(tmp_path)
    scores = {}
    for path in (fresh, old):
        res = run_cli(["coherence", "--reference", path, "--topics", topics, "--window", "3", "--format",
                       "json"])
        assert res.code == 0, res.err
        scores[path] = [t["score"] for t in json.loads(res.out)["topics"]]
    assert scores[old] == scores[fresh]
    info = json.loads(run_cli(["index", "info", old, "--format", "json"]).out)
    assert "segmentation" not in info
    letters = sum(len(w) for d in DOCS for w in d.split())
    assert json.loads(run_cli(["index", "info", fresh, "--format", "json"]).out)["segmentation"] == {
        "letters": letters, "long_token_letters": 0, "long_token": 15}


OLD_50M = Path(__file__).resolve().parents[2] / "benchmarks" / "out" / "coherence_scale_50M.tlx"


@pytest.mark.slow
@pytest.mark.skipif(not FULL or not OLD_50M.exists(), reason="TEALEAVES_FULL=1 and benchmarks/out/"
                    "coherence_scale_50M.tlx (built before the segmentation field) needed")
def test_the_50m_index_without_segmentation_loads_and_scores(tmp_path, run_cli):
    from tealeaves.index import ReferenceIndex

    ix = ReferenceIndex.load(OLD_50M)
    assert "segmentation" not in ix.header
    topics = [["said", "shares", "company"], ["lord", "god", "israel"]]
    topics_file = _write(tmp_path / "t.txt", "".join(" ".join(t) + "\n" for t in topics))
    res = run_cli(["coherence", "--reference", OLD_50M, "--topics", topics_file, "--format", "json"])
    assert res.code == 0, res.err
    ptr, docs, n = np.asarray(ix.arrays["word_ptr"]), np.asarray(ix.arrays["post_docs"]), ix.n_present
    sets = {w: docs[ptr[ix.vocabulary.index[w]]:ptr[ix.vocabulary.index[w] + 1]] for t in topics for w in t}
    want = []
    for t in topics:  # NPMI from document sets of the postings
        vals = []
        for i, a in enumerate(t):
            for b in t[i + 1:]:
                pab = len(np.intersect1d(sets[a], sets[b])) / n
                pa, pb = len(sets[a]) / n, len(sets[b]) / n
                vals.append(math.log(pab / (pa * pb)) / -math.log(pab))
        want.append(sum(vals) / len(vals))
    assert [t["score"] for t in json.loads(res.out)["topics"]] == pytest.approx(want, abs=1e-12)


# -- malformed and hand-edited headers -----------------------------------------------------------------------
SEGMENTATION_CASES = [
    ([], "has segmentation=[] in its header (expected an object)"),
    (None, None),  # removed: an index from before today (above)
    ({}, "has segmentation={} in its header (expected whole numbers letters >= long_token_letters >= 0"),
    ({"letters": "x"}, "has segmentation={'letters': 'x'} in its header (expected whole numbers"),
    ({"letters": -5, "long_token_letters": 0, "long_token": 15}, "has segmentation={'letters': -5"),
    ({"letters": 10, "long_token_letters": 11, "long_token": 15}, "'long_token_letters': 11"),
    ({"letters": 10, "long_token_letters": 1, "long_token": 0}, "'long_token': 0"),
    ({"letters": 10.0, "long_token_letters": 1, "long_token": 15}, "'letters': 10.0"),
    ({"letters": math.nan, "long_token_letters": 0, "long_token": 15},
     "has an unreadable header (ValueError: NaN is not a JSON number)"),
    ({"letters": 10, "long_token_letters": 0, "long_token": 15, "x": math.inf},
     "has an unreadable header (ValueError: Infinity is not a JSON number)"),
]


@pytest.mark.parametrize("segmentation, fragment", [c for c in SEGMENTATION_CASES if c[1]])
@pytest.mark.parametrize("command", ["index info", "coherence"])
def test_malformed_segmentation_header(fresh, tmp_path, cli_error, segmentation, fragment, command):
    # before: {} / 'x' / -5 / 11 > 10 / 0 / 10.0 loaded and were shown as the build's counts; NaN and Infinity
    # made `index info` say "this is a bug in tealeaves"
    bad = _rewrite(fresh, tmp_path / "bad.tlx", segmentation=segmentation)
    argv = (["index", "info", bad] if command == "index info" else
            ["coherence", "--reference", bad, "--topics", _topics(tmp_path)])
    cli_error(argv, fragment)


def test_header_number_out_of_float_range_is_refused(fresh, tmp_path, cli_error):
    import hashlib

    from tealeaves.index.format import PREFIX as _PREFIX

    bad = _rewrite(fresh, tmp_path / "bad.tlx", tokenization={"max_df": 0.12345})
    data = bytearray(bad.read_bytes().replace(b'"max_df": 0.12345', b'"max_df": 1e99999'))  # same length
    data[24:56] = hashlib.sha256(bytes(data[_PREFIX.size:])).digest()  # a careful hand edit: new checksum
    bad.write_bytes(bytes(data))
    cli_error(["index", "info", bad], "has an unreadable header (ValueError: 1e99999 is out of range)")


def test_hand_edited_segmentation_without_a_new_checksum(fresh, tmp_path, cli_error):
    data = bytearray(fresh.read_bytes())
    at = data.find(b'"long_token_letters": 0')
    data[at:at + 23] = b'"long_token_letters": 9'  # same length, checksum left as it was
    edited = tmp_path / "edited.tlx"
    edited.write_bytes(bytes(data))
    cli_error(["index", "info", edited], "checksum mismatch in")
