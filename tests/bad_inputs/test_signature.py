"""Signatures (``tealeaves.signature``): every string ``str(Signature)`` writes parses back exactly and
escapes it never writes are refused; names holding the separators, escapes, control characters or non-ASCII
letters (of references, sweep stores, measures) pass unchanged through the commands that record them
(``index build``, ``index info``, ``coherence``, ``cnpmi``, ``sweep``, ``compare``, ``report``,
``human correlate``) and the estimator's feature settings.

Each case asserts a clean error (exit code, ``tealeaves: error:`` and a fragment, no traceback; the error
class through the API), or a result equal to an independent computation.  A comment "before:" says what
the case did before its fix."""

from __future__ import annotations

import json
import math
import re
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from conftest import DOCS, TOPICS
from conftest import write_jsonl as _jsonl
from conftest import write_text as _write
from conftest import write_topics as _topics
from tealeaves.errors import InputFormatError
from tealeaves.signature import Signature

# -- Signature.str and Signature.parse -----------------------------------------------------------------------
NAMES = ["a|b", "x: y z", "naïve réf 2026", "a=b", "back\\slash", "C:\\models\\m|1.npz", "a\nb\r\tc",
         "\u2028\u2029", "\ud800", "😀 ü", "\\x41", "\\|", "", "tealeaves-9", "|"]


@pytest.mark.parametrize("name", NAMES)
def test_signature_round_trips_any_string(name):
    sig = Signature("npmi" + name, {"ref": f"{name}@3fa2c1d0", "k" + name: name, "top": 10,
                                    "langs": [name, "en"], "alpha": 0.5}, "0.1.0" + name)
    text = str(sig)
    assert text.isprintable() and "\n" not in text  # one printable line whatever the name
    back = Signature.parse(text)
    assert back.measure == sig.measure and back.version == sig.version
    assert back.fields == {"ref": f"{name}@3fa2c1d0", "k" + name: name, "top": "10", "langs": f"{name},en",
                           "alpha": "0.5"}
    assert str(back) == text


def test_signature_of_plain_strings_is_unchanged_and_escapes_are_the_documented_ones():
    plain = Signature("npmi", {"ref": "reuters@abc", "win": "doc", "top": 10}, "0.1.0")
    assert str(plain) == "npmi|ref=reuters@abc|win=doc|top=10|tealeaves-0.1.0"
    # the module docstring's rule: \ -> \\, | -> \|, '=' outside a value -> \=, unprintable -> \xHH / \uHHHH
    odd = Signature("m=x", {"ref": "a|b@1", "k=1": "v=2", "p": "C:\\x", "nl": "a\nb", "ls": "\u2028"},
                    "0.1.0")
    assert str(odd) == ("m\\=x|ref=a\\|b@1|k\\=1=v=2|p=C:\\\\x|nl=a\\x0ab|ls=\\u2028|tealeaves-0.1.0")


@pytest.mark.parametrize("text, fragment", [
    ("", "is not a tealeaves signature"),
    ("npmi|ref=a", "is not a tealeaves signature"),
    ("npmi|ref=a|tealeaves-0.1\\", "backslash starting no escape at character 25"),
    ("npmi|ref=a\\qb|tealeaves-0.1", "backslash starting no escape at character 11"),
    ("npmi|ref=\\x4|tealeaves-0.1", "backslash starting no escape"),
    ("npmi|ref|tealeaves-0.1", "has a field 'ref' with no '='"),
    ("npmi|top=1|top=2|tealeaves-0.1", "names field 'top' twice"),
    ("np=mi|tealeaves-0.1", "is not a tealeaves signature"),
])
def test_signature_parse_refuses_what_str_cannot_write(text, fragment):
    with pytest.raises(InputFormatError, match=fragment):
        Signature.parse(text)


@pytest.mark.parametrize("text, fragment", [
    # before: ValueError "chr() arg not in range(0x110000)" (exit 70 through `tealeaves compare`)
    ("npmi|ref=\\U00110000|tealeaves-0.1", "has the escape '\\\\U00110000' at character 10, which tealeaves "
                                           "does not write"),
    # before: accepted, although str(Signature) writes these characters as they are ('A', 'é', '😀')
    ("npmi|ref=\\x41|tealeaves-0.1", "has the escape '\\\\x41' at character 10"),
    ("npmi|ref=\\u00e9|tealeaves-0.1", "has the escape '\\\\u00e9'"),
    ("npmi|ref=\\U0001f600|tealeaves-0.1", "has the escape '\\\\U0001f600'"),
    ("npmi|ref=\\x0A|tealeaves-0.1", "has the escape '\\\\x0A'"),  # str writes \x0a
    ("npmi|ref=a\nb|tealeaves-0.1", "holds the unprintable character '\\n' at character 11"),
])
def test_signature_parse_refuses_escapes_str_never_writes(text, fragment):
    with pytest.raises(InputFormatError, match=re.escape(fragment)):
        Signature.parse(text)


@pytest.mark.parametrize("char", ["\n", "\x85", "\u2028", "\ud800", "\U000e0001", "\\", "|", "="])
def test_every_escape_str_writes_parses_back(char):
    sig = Signature("m" + char, {"k" + char: "v" + char}, "1" + char)
    assert Signature.parse(str(sig)) == Signature("m" + char, {"k" + char: "v" + char}, "1" + char)


# -- reference names through index build, coherence and cnpmi ------------------------------------------------
REF_NAMES = ["a|b", "x: y z", "naïve réf|2026 ü", "k=v\\w"]


@pytest.mark.parametrize("name", REF_NAMES)
def test_reference_name_round_trips_through_coherence_and_cnpmi(tmp_path, run_cli, name):
    # before: a name with '|' (given, or the default from a file name a|b.jsonl) made every signature of
    # the reference unparsable ("field 'b@...' has no '='"), and --name 'a|b' was refused
    from tealeaves.index import ReferenceIndex

    src = _jsonl(tmp_path / f"{name}.jsonl", [{"id": 1, "text": "cat dog"}, {"id": 2, "text": "cat mat"}])
    topics = _write(tmp_path / "t.txt", "cat dog\n")
    for args, index in ([[], tmp_path / "default.tlx"], [["--name", name], tmp_path / "named.tlx"]):
        assert run_cli(["index", "build", src, "-o", index, *args]).code == 0
        result = run_cli(["coherence", "--reference", index, "--topics", topics, "--format", "json"])
        assert result.code == 0, result.err
        fields = Signature.parse(json.loads(result.out)["signature"]).fields
        assert fields["ref"] == f"{name}@{ReferenceIndex.load(index).short_checksum}"
    tuples = _jsonl(tmp_path / "tuples.jsonl", [{"id": 1, "en": "cat dog", "sv": "katt hund"},
                                                  {"id": 2, "en": "cat mat", "sv": "katt matta"}])
    assert run_cli(["index", "build-aligned", tuples, "-o", tmp_path / "ref", "--name", name]).code == 0
    cl = _write(tmp_path / "cl.json", json.dumps({"en": [["cat", "dog"]], "sv": [["katt", "hund"]]}))
    result = run_cli(["cnpmi", cl, "--reference", tmp_path / "ref", "--format", "json"])
    assert result.code == 0, result.err
    ref = Signature.parse(json.loads(result.out)["cnpmi"]["signature"]).fields["ref"]
    assert ref.rpartition("@")[0] == name


def test_good_reference_name_round_trips_through_the_signature(tmp_path, run_cli):
    from tealeaves.signature import Signature

    src = _write(tmp_path / "d.jsonl", '{"id": 1, "text": "cat dog"}\n{"id": 2, "text": "cat mat"}\n')
    assert run_cli(["index", "build", src, "-o", tmp_path / "r.tlx", "--name", "naïve ref-2026"]).code == 0
    topics = _write(tmp_path / "t.txt", "cat dog\n")
    result = run_cli(["coherence", "--reference", tmp_path / "r.tlx", "--topics", topics, "--format", "json"])
    assert result.code == 0
    sig = json.loads(result.out)["signature"]
    assert Signature.parse(sig).fields["ref"].startswith("naïve ref-2026@")


# -- odd names through every command that records or prints them ---------------------------------------------
def brute_npmi(docs: list[set], topic: list[str]) -> float:
    """Mean document-co-occurrence NPMI of a topic's pairs, by sets (zero=limit: never together -> -1)."""
    n, vals = len(docs), []
    for i, a in enumerate(topic):
        for b in topic[i + 1:]:
            pa, pb = sum(a in d for d in docs) / n, sum(b in d for d in docs) / n
            pab = sum(a in d and b in d for d in docs) / n
            vals.append(-1.0 if pab == 0 else 1.0 if pab == 1 else math.log(pab / (pa * pb)) / -math.log(pab))
    return sum(vals) / len(vals)


ODD_NAMES = ["we|ird", "k=v\\w", "naïve ü ☃", "tab\tnew\nline\x1b[31m"]


@pytest.fixture(scope="module")
def odd_refs(tmp_path_factory):
    """For every odd name: a corpus file named after it, its index (default name: the file's stem)."""
    from tealeaves.cli import main

    out = {}
    for i, name in enumerate(ODD_NAMES):
        folder = tmp_path_factory.mktemp(f"odd{i}")
        src = _write(folder / f"{name}.txt", "".join(d + "\n" for d in DOCS))
        assert main(["index", "build", str(src), "-o", str(folder / "ref.tlx")]) == 0
        out[name] = folder
    return out


@pytest.mark.parametrize("name", ODD_NAMES)
def test_odd_reference_name_through_coherence_text_and_json(odd_refs, run_cli, name):
    from tealeaves.index import ReferenceIndex

    folder = odd_refs[name]
    want = f"{name}@{ReferenceIndex.load(folder / 'ref.tlx').short_checksum}"
    topics = _topics(folder)
    res = run_cli(["coherence", "--reference", folder / "ref.tlx", "--topics", topics, "--format", "json"])
    assert res.code == 0, res.err
    out = json.loads(res.out)
    assert Signature.parse(out["signature"]).fields["ref"] == want
    docs = [set(d.split()) for d in DOCS]
    want_scores = [brute_npmi(docs, t) for t in TOPICS]
    assert [t["score"] for t in out["topics"]] == pytest.approx(want_scores, abs=1e-12)
    text = run_cli(["coherence", "--reference", folder / "ref.tlx", "--topics", topics])
    first = text.out.splitlines()[0]
    assert first.isprintable() and Signature.parse(first).fields["ref"] == want  # one line, as printed


@pytest.mark.parametrize("name", ODD_NAMES)
def test_index_info_prints_odd_names_escaped(odd_refs, run_cli, name):
    # before: the name and source path (from the file name) were printed raw: a newline split the table
    # and an ANSI escape reached the terminal
    res = run_cli(["index", "info", odd_refs[name] / "ref.tlx"])
    assert res.code == 0, res.err
    assert all(line.isprintable() for line in res.out.splitlines())
    from tealeaves._terminal import escape

    assert escape(name) in res.out
    info = json.loads(run_cli(["index", "info", odd_refs[name] / "ref.tlx", "--format", "json"]).out)
    assert info["name"] == name  # JSON keeps the exact name


@pytest.fixture(scope="module")
def odd_store(odd_refs):
    """A sweep store (2 models) scored against the reference named 'we|ird'."""
    from tealeaves.cli import main

    folder = odd_refs["we|ird"]
    store = folder / "st|o=re"
    assert main(["sweep", str(folder / "we|ird.txt"), "--k", "2", "3", "--seeds", "1", "--reference",
                 str(folder / "ref.tlx"), "-o", str(store), "--top", "3", "--settings",
                 '{"max_iter": 5}']) == 0
    return store


def test_odd_name_through_sweep_compare_and_report(odd_refs, odd_store, run_cli):
    from tealeaves.index import ReferenceIndex

    want = f"we|ird@{ReferenceIndex.load(odd_refs['we|ird'] / 'ref.tlx').short_checksum}"
    res = run_cli(["compare", odd_store, "--models", "sklearn-K2-s0", "sklearn-K3-s0", "--n-boot", "100",
                   "--format", "json"])
    assert res.code == 0, res.err
    sigs = [Signature.parse(s) for s in _values(json.loads(res.out), "signature")]
    assert {s.measure for s in sigs} == {"loglik-difference", "coherence-difference"}
    assert [s.fields["ref"] for s in sigs if s.measure == "coherence-difference"] == [want]
    report = run_cli(["report", odd_store, "--format", "json"])
    assert report.code == 0, report.err
    assert json.loads(report.out)["sweep"]["reference"] == want


def _values(obj, key):
    """Every value stored under ``key`` anywhere in a JSON document."""
    if isinstance(obj, dict):
        return [v for k, v in obj.items() if k == key] + [x for v in obj.values() for x in _values(v, key)]
    return [x for v in obj for x in _values(v, key)] if isinstance(obj, list) else []


@pytest.mark.parametrize("signature, fragment", [
    ("npmi|ref=x\\U00110000@abc|win=doc|tealeaves-0.1.0", "has the escape '\\\\U00110000' at character 11"),
    ("npmi|ref=x\\qy|tealeaves-0.1.0", "has a backslash starting no escape at character 11"),
])
def test_compare_a_store_with_a_hand_edited_signature(odd_store, tmp_path, cli_error, signature, fragment):
    # before: the first was "internal error: ValueError: chr() arg not in range(0x110000)" (exit 70)
    store = tmp_path / "edited.db"
    store.write_bytes(Path(odd_store).read_bytes())
    db = sqlite3.connect(store)
    for name, measures in db.execute("SELECT name, measures FROM models").fetchall():
        m = json.loads(measures)
        m["signatures"]["npmi"] = signature
        db.execute("UPDATE models SET measures = ? WHERE name = ?", (json.dumps(m), name))
    db.commit()
    db.close()
    cli_error(["compare", store, "--models", "sklearn-K2-s0", "sklearn-K3-s0", "--n-boot", "100"], fragment)


def test_odd_measure_name_through_human_correlate(tmp_path, run_cli):
    human = _write(tmp_path / "h.csv", "topic,model_precision\n0,0.1\n1,0.5\n2,0.3\n3,0.9\n4,0.7\n")
    measures = _write(tmp_path / "m.csv", 'topic,"np|mi=x\\y é"\n0,0.2\n1,0.4\n2,0.1\n3,0.8\n4,0.6\n')
    res = run_cli(["human", "correlate", human, "--measures", measures, "--n-boot", "100", "--format",
                   "json"])
    assert res.code == 0, res.err
    out = json.loads(res.out)[0]
    assert Signature.parse(out["signature"]).fields["measure"] == "np|mi=x\\y é"
    assert out["pearson"]["estimate"] == pytest.approx(np.corrcoef([0.1, 0.5, 0.3, 0.9, 0.7],
                                                            [0.2, 0.4, 0.1, 0.8, 0.6])[0, 1], abs=1e-12)
    text = run_cli(["human", "correlate", human, "--measures", measures, "--n-boot", "100"])
    assert Signature.parse(text.out.strip().splitlines()[-1]).fields["measure"] == "np|mi=x\\y é"


# -- the estimator's feature settings read the reference name from the signatures ----------------------------
@pytest.mark.parametrize("name", ["my@ref", "a|b", "plain"])
def test_estimator_settings_keep_the_whole_reference_name(name):
    # before: the name was cut at its first '@' ("my@ref" -> "my"), so references "my@ref" and "my@other"
    # had the same settings and an estimator trained on one was applied to the other without a word
    from tealeaves.multilingual.estimator_io import feature_settings

    def sigs(ref):
        return {m: str(Signature(m, {"ref": f"{ref}-en-sv@0123456789ab", "langs": "en-sv", "top": 10}))
                for m in ("cnpmi", "inpmi")}

    want = {m: {"ref": name, "top": "10"} for m in ("cnpmi", "inpmi")}
    assert feature_settings(sigs(name), ["en", "sv"]) == want
    assert feature_settings(sigs(name + "@x"), ["en", "sv"]) != feature_settings(sigs(name), ["en", "sv"])
