"""``tealeaves index build|info`` and ``tealeaves coherence`` end to end on a small token file."""

from __future__ import annotations

import json
import math

import pytest

from tealeaves.cli import main

DOCS = ["oil gas energy price", "gas energy oil", "bank rate loan", "bank loan oil", "",
        "rate price bank energy"]


@pytest.fixture()
def files(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("\n".join(DOCS) + "\n")
    topics = tmp_path / "topics.txt"
    topics.write_text("oil gas energy\nbank loan rate zzz\n")
    return ref, topics, tmp_path / "ref.tlx"


def _npmi(docs, a, b):
    sets = [set(d.split()) for d in docs]
    n = len(sets)
    pa, pb = sum(a in s for s in sets) / n, sum(b in s for s in sets) / n
    pab = sum(a in s and b in s for s in sets) / n
    return math.log(pab / (pa * pb)) / -math.log(pab)


def test_build_info_and_score(files, capsys):
    ref, topics, out = files
    assert main(["index", "build", str(ref), "-o", str(out), "--format", "json"]) == 0
    built = json.loads(capsys.readouterr().out)
    assert built["n_documents"] == 6 and built["n_tokens"] == 17
    assert main(["index", "info", str(out), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["checksum"] == built["checksum"]
    assert main(["coherence", "--reference", str(out), "--topics", str(topics), "--format", "json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["signature"].startswith(f"npmi|ref=ref@{built['checksum'][:12]}|win=doc|top=10")
    expected = (_npmi(DOCS, "oil", "gas") + _npmi(DOCS, "oil", "energy") + _npmi(DOCS, "gas", "energy")) / 3
    assert res["topics"][0]["score"] == pytest.approx(expected, abs=1e-12)
    assert res["topics"][1]["missing"] == ["zzz"]
    assert main(["coherence", "--reference", str(out), "--topics", str(topics), "--pairs", "0"]) == 0
    text = capsys.readouterr().out
    assert "topic 0 word pairs (npmi)" in text and "energy" in text


def test_cli_errors_are_clean(files, capsys):
    ref, topics, out = files
    assert main(["index", "build", str(ref), "-o", str(out)]) == 0
    raw = bytearray(out.read_bytes())
    raw[200] ^= 0xFF
    out.write_bytes(bytes(raw))
    assert main(["index", "info", str(out)]) == 1
    assert "checksum mismatch in" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:  # a value --window cannot take is a usage error
        main(["coherence", "--reference", str(ref), "--topics", str(topics), "--window", "x"])
    assert usage.value.code == 2
    err = capsys.readouterr().err
    assert "--window must be 'doc' or a whole number of tokens from 1 to 1,073,741,824" in err


def test_build_from_json_lines_records_the_tokenisation(tmp_path, capsys):
    src = tmp_path / "ref.jsonl"
    src.write_text('{"id": "a", "text": "Oil and gas prices rose."}\n'
                   '{"id": "b", "text": "Bank loans, 3 rates"}\n')
    out = tmp_path / "ref.tlx"
    assert main(["index", "build", str(src), "-o", str(out), "--format", "json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["n_documents"] == 2 and info["n_tokens"] == 7  # stop word "and" and the digit dropped
    assert info["tokenization"]["stop_words"] == "english"
    assert main(["index", "build", str(tmp_path / "missing.txt"), "-o", str(out)]) == 1
    assert "does not exist" in capsys.readouterr().err
