"""A second reading of session 4's new surfaces: signature escaping, --memory bounds, the one language-code
rule and the unsegmented-text refusal (index header field ``segmentation``).  Each case asserts the exact
outcome: exit code + ``tealeaves: error:`` + a message fragment and no traceback (CLI, in process), the
error class + fragment (API), or a value recomputed independently.  Cases marked "before:" failed on main
at 7818f2a."""
from __future__ import annotations

import json
import math
import re
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from conftest import FULL
from tealeaves.errors import InputFormatError
from tealeaves.signature import Signature

DOCS = ["cat dog mat cat", "dog mat rug", "sun moon star", "moon star sky sun", "cat rug mat", "sky sun star",
        "cat dog", "moon sky"] * 4
TOPICS = [["cat", "dog", "mat"], ["sun", "moon", "star"]]


def _write(path, text):
    path.write_text(text, encoding="utf-8", newline="")
    return path


def _jsonl(path, rows):
    return _write(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


def _topics(tmp_path):
    return _write(tmp_path / "topics.txt", "".join(" ".join(t) + "\n" for t in TOPICS))


def brute_npmi(docs: list[set], topic: list[str]) -> float:
    """Mean document-co-occurrence NPMI of a topic's pairs, by sets (zero=limit: never together -> -1)."""
    n, vals = len(docs), []
    for i, a in enumerate(topic):
        for b in topic[i + 1:]:
            pa, pb = sum(a in d for d in docs) / n, sum(b in d for d in docs) / n
            pab = sum(a in d and b in d for d in docs) / n
            vals.append(-1.0 if pab == 0 else 1.0 if pab == 1 else math.log(pab / (pa * pb)) / -math.log(pab))
    return sum(vals) / len(vals)


# == 1. signatures ========================================================================================
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


# == 2. --memory spellings ================================================================================
@pytest.fixture
def small(tmp_path):
    return _jsonl(tmp_path / "d.jsonl", [{"id": 1, "text": "cat dog"}, {"id": 2, "text": "cat mat"}])


@pytest.mark.parametrize("value, expected", [("1 G", 1 << 30), ("1GiB", 1 << 30), ("1.5G", 3 << 29),
                                             ("1 gib", 1 << 30), (" 512m ", 512 << 20), ("5e2M", 500 << 20),
                                             (str(450 << 20), 450 << 20)])
def test_memory_spellings_accepted(value, expected):
    from tealeaves.index.memory import parse_memory

    assert parse_memory(value) == expected


@pytest.mark.parametrize("value, fragment", [
    ("0", "--memory '0' is below the smallest budget (400 MiB)"),
    ("-1", "--memory '-1' is below the smallest budget (400 MiB)"),
    ("=-1G", "--memory '-1G' is below the smallest budget"),  # (--memory -1G: argparse reads an option)
    ("1e3", "--memory '1e3' is below the smallest budget"),  # a plain number is bytes
    ("huge", "--memory 'huge' is not a size"),
    ("", "--memory '' is not a size"),
    ("G", "--memory 'G' is not a size"),
    ("1e30", "--memory '1e30' is more than this machine's physical memory"),
    ("1e18G", "--memory '1e18G' is more than this machine's physical memory"),
])
def test_memory_spellings_refused(tmp_path, cli_error, small, value, fragment):
    memory = ["--memory" + value] if value.startswith("=") else ["--memory", value]
    cli_error(["index", "build", small, "-o", tmp_path / "out.tlx", *memory], fragment)
    assert not (tmp_path / "out.tlx").exists()


@pytest.mark.parametrize("value, workers, fragment", [
    # before: "--memory 1e+03 MiB for each of --workers 2 ..."
    ("1000M", "2", "--memory 1000 MiB for each of --n-jobs 2 is 1.95 GiB in all, more than this machine's "
                   "physical memory (1.5 GiB) (give at most 768M, or fewer --n-jobs)"),
    ("1 G", "2", "--memory 1 GiB for each of --n-jobs 2 is 2 GiB in all"),
    ("1.6G", "1", "--memory '1.6G' is more than this machine's physical memory (1.5 GiB)"),
])
def test_memory_with_workers(tmp_path, cli_error, monkeypatch, small, value, workers, fragment):
    pytest.importorskip("distributed")
    from tealeaves.index import memory as build

    monkeypatch.setattr(build, "physical_memory", lambda: (3 << 29, "this machine's physical memory"))
    cli_error(["index", "build", small, "-o", tmp_path / "out.tlx", "--memory", value, "--workers", workers],
              fragment)
    assert not (tmp_path / "out.tlx").exists()
    assert build.parse_memory("1.5G") == 3 << 29  # exactly the machine: accepted


@pytest.mark.parametrize("n, text", [(1000 << 20, "1000 MiB"), (1023 << 20, "1023 MiB"),
                                     ((1 << 30) - 1, "1024 MiB"), (1 << 30, "1 GiB"),
                                     (int(23.5 * (1 << 30)), "23.5 GiB"),
                                     (10000 << 40, "10000 TiB"), (399 << 20, "399 MiB")])
def test_size_text_has_no_exponent(n, text):
    from tealeaves.index.memory import size_text

    assert size_text(n) == text


# == 3. language codes ====================================================================================
@pytest.mark.parametrize("key, side", [("EN", "en"), ("en-US", "en"), ("eng_Latn", "en"), ("und", "und"),
                                       ("mul", "mul"), ("sv-SE", "sv-se"), ("BUL", "bul")])
def test_tuple_key_spellings_build_and_score(tmp_path, run_cli, key, side):
    rows = [{"id": i, key: d, "sv": d.replace("cat", "katt")} for i, d in enumerate(DOCS)]
    if key.lower().startswith("sv"):
        rows = [{"id": i, key: d, "en": d} for i, d in enumerate(DOCS)]
    out = tmp_path / "ref"
    res = run_cli(["index", "build-aligned", _jsonl(tmp_path / "t.jsonl", rows), "-o", out])
    assert res.code == 0, res.err
    manifest = json.loads((out / "aligned.json").read_text(encoding="utf-8"))
    assert side in manifest["languages"]
    other = "en" if key.lower().startswith("sv") else "sv"
    topics = _write(tmp_path / "k.json", json.dumps({key: [["mat", "dog"]], other: [["mat", "dog"]]}))
    res = run_cli(["cnpmi", topics, "--reference", out, "--top", "2", "--format", "json"])
    assert res.code == 0, res.err
    docs = [set(d.split()) for d in DOCS]  # both sides hold the same words for mat and dog
    pairs = [("mat", "mat"), ("mat", "dog"), ("dog", "mat"), ("dog", "dog")]
    want = np.mean([brute_npmi_pair(docs, a, b) for a, b in pairs])
    assert json.loads(res.out)["cnpmi"]["per_topic"] == pytest.approx([want], abs=1e-12)


def brute_npmi_pair(docs, a, b):
    n = len(docs)
    pa, pb, pab = (sum(a in d for d in docs) / n, sum(b in d for d in docs) / n,
                   sum(a in d and b in d for d in docs) / n)
    return -1.0 if pab == 0 else 1.0 if pab == 1 else math.log(pab / (pa * pb)) / -math.log(pab)


@pytest.mark.parametrize("key, fragment", [
    ("en_US", "'en_US' is not a language code"),
    ("zh_Hant", "'zh_Hant' is not a language code"),
    ("", "'' is not a language code"),
    ("ñe", "'ñe' is not a language code"),
    ("e n", "'e n' is not a language code"),
    ("en-", "'en-' is not a language code"),
])
def test_tuple_keys_refused(tmp_path, cli_error, key, fragment):
    src = _jsonl(tmp_path / "t.jsonl", [{"id": 1, key: "cat dog", "sv": "katt hund"}])
    cli_error(["index", "build-aligned", src, "-o", tmp_path / "r"], fragment, progress=True)
    assert not (tmp_path / "r").exists()


def test_zh_hans_key_is_chinese_segmented_by_jieba(tmp_path, run_cli):
    pytest.importorskip("jieba")
    rows = [{"id": 1, "zh_Hans": "我们今天在北京学习中文。", "en": "we study chinese in beijing today"},
            {"id": 2, "zh_Hans": "北京的天气很好。", "en": "the weather in beijing is good"}]
    res = run_cli(["index", "build-aligned", _jsonl(tmp_path / "t.jsonl", rows), "-o", tmp_path / "r"])
    assert res.code == 0, res.err
    info = json.loads(run_cli(["index", "info", tmp_path / "r" / "zh.tlx", "--format", "json"]).out)
    assert info["segmentation"]["long_token_letters"] == 0 and "jieba" in json.dumps(info["tokenization"])


@pytest.mark.parametrize("key, shown", [("bg", "'bg'"), ("sv-SE", "'sv-se'"), ("xx", "'xx'")])
def test_builtin_reference_and_a_code_outside_the_table(tmp_path, cli_error, key, shown):
    # before: "unknown language code 'bg'; known codes: am, amh, ... (add an alias to
    # tealeaves.corpus.aligned.LANGUAGE_ALIASES for another language)": the built-in reference simply has
    # no text in that language, and the topics' own rule had accepted the code
    topics = _write(tmp_path / "k.json", json.dumps({"en": [["god", "earth"]], key: [["a", "b"]]}))
    r = cli_error(["cnpmi", topics, "--reference", "bible"],
                  f"the built-in reference 'bible' has no text in {shown}")
    assert "tealeaves index build-aligned" in r.err


def test_builtin_reference_api_raises_language_mismatch():
    from tealeaves.corpus.aligned import LanguageMismatchError
    from tealeaves.multilingual.reference import named_reference

    with pytest.raises(LanguageMismatchError, match="the built-in reference 'udhr' has no text in 'bg'"):
        named_reference("udhr", ["en", "bg"])


# == 4. index files from before today and hand-edited headers ==============================================
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
def test_the_50m_index_from_before_today_loads_and_scores(tmp_path, run_cli):
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


# == 5. unsegmented text through the API's token lists ===================================================
UNSEGMENTED = [["我们今天在北京学习中文", "北京的天气今天很好"], ["今天我们在北京学习", "x"],
               ["我们在北京学习中文很开心"]]


@pytest.mark.parametrize("restricted", [False, True])
def test_unsegmented_token_lists_are_refused_like_a_corpus(restricted):
    # before: Coherence.score(topics, token_lists) scored them (mean -0.26 with exit 0) while
    # Corpus.from_token_lists of the same tokens was refused
    from tealeaves.coherence import Coherence, index_from_token_lists
    from tealeaves.corpus import Corpus
    from tealeaves.corpus.preprocess import UnsegmentedTextError

    words = ["我们今天在北京学习中文", "北京的天气今天很好"]
    with pytest.raises(UnsegmentedTextError, match="the reference text looks unsegmented"):
        Coherence("npmi").score([words], Corpus.from_token_lists(UNSEGMENTED))
    with pytest.raises(UnsegmentedTextError, match=r"reference text \(token lists\) looks unsegmented: 99%"):
        index_from_token_lists(UNSEGMENTED, words=words if restricted else None)
    if not restricted:
        with pytest.raises(UnsegmentedTextError, match="token lists"):
            Coherence("npmi").score([words], UNSEGMENTED)


@pytest.mark.parametrize("restricted", [False, True])
def test_segmented_token_lists_record_their_counts(restricted):
    from tealeaves.coherence import index_from_token_lists

    docs = [d.split() for d in DOCS] + [["internationalisation", "x"]]  # 20 letters in one long token
    ix = index_from_token_lists(docs, words=["cat", "dog"] if restricted else None)
    letters = sum(len(w) for d in docs for w in d)
    assert ix.header["segmentation"] == {"letters": letters, "long_token_letters": 20, "long_token": 15}


# == 6. aligned reference manifests spelled with other codes ==============================================
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


# == 7. a None topic word (fixed on main by 6e98615 while this review ran) ==============================
def test_a_none_topic_word_through_the_api_is_refused():
    from tealeaves.coherence import Coherence, TopicError, index_from_token_lists

    ix = index_from_token_lists([["cat", "dog"], ["sun", "moon"], ["cat", "moon"]])
    with pytest.raises(TopicError, match="words must be strings"):
        Coherence("npmi", top_n=3).score([["cat", None, "sun"]], ix)  # 7818f2a: -0.333; dfe11a6: -1.0


def test_memory_spelled_as_a_negative_option_is_a_usage_error(tmp_path, cli_error, small):
    cli_error(["index", "build", small, "-o", tmp_path / "out.tlx", "--memory", "-1G"],
              "argument --memory: expected one argument", code=2)


# == 8. the unsegmented-text fix names what the command can do =============================================
ZH_LINES = "".join(" ".join(d) + "\n" for d in UNSEGMENTED) * 3


@pytest.mark.parametrize("argv", [
    ["index", "build", "{src}", "-o", "{out}"],
    ["coherence", "--reference", "{src}", "--topics", "{topics}"],  # a raw corpus, indexed in memory
])
def test_one_language_builds_do_not_suggest_a_language_code(tmp_path, cli_error, argv):
    # before: "(segment it into space-separated words first, or for Chinese use the language code zh ...)":
    # neither command has a language code
    from tealeaves.corpus.preprocess import TEXT_FIX

    src = _write(tmp_path / "zh.txt", ZH_LINES)
    values = {"src": src, "out": tmp_path / "zh.tlx", "topics": _write(tmp_path / "t.txt", "我们 北京\n")}
    r = cli_error([a.format(**values) for a in argv], "looks unsegmented: 99% of its letters", progress=True)
    assert f"({TEXT_FIX})" in r.err and "language code zh" not in r.err
    assert not (tmp_path / "zh.tlx").exists()


def test_aligned_builds_keep_the_language_code_fix(tmp_path, cli_error):
    from tealeaves.corpus.preprocess import ALIGNED_FIX

    rows = [{"id": i, "en": "cat dog", "zh-hant": " ".join(d)} for i, d in enumerate(UNSEGMENTED)]
    r = cli_error(["index", "build-aligned", _jsonl(tmp_path / "t.jsonl", rows), "-o", tmp_path / "r"],
                  "the zh-hant text looks unsegmented", progress=True)
    assert f"({ALIGNED_FIX})" in r.err


@pytest.mark.parametrize("docs, words, shown", [
    ([[1, 2]], None, "1 (int)"), ([["a", None]], None, "None (NoneType)"), ([["a", 3]], ["a"], "3 (int)"),
    ([["a", b"b"]], None, "b'b' (bytes)")])
def test_token_lists_of_non_strings(docs, words, shown):
    # before: AttributeError "'int' object has no attribute 'encode'" (and None, in a restricted index, read
    # as a token outside the words)
    from tealeaves.coherence import Coherence, index_from_token_lists

    with pytest.raises(InputFormatError, match=re.escape(f"hold the token {shown}; tokens must")):
        index_from_token_lists(docs, words=words)
    with pytest.raises(InputFormatError, match="tokens must be strings"):
        Coherence("npmi", top_n=2).score([["a", "x"]], docs)


@pytest.mark.parametrize("physical, value, workers, fragment", [
    # before: "(give at most 376M, or fewer --workers)", a size --memory refuses (below 400M)
    (int(23.5 * (1 << 30)), "400M", "64",
     "--memory 400 MiB for each of --n-jobs 64 is 25 GiB in all, more than this machine's physical memory "
     "(23.5 GiB) (give at most --n-jobs 60 (each needs at least 400 MiB), or build on --scheduler)"),
    # before: "(give at most 300M: ...)" on a machine smaller than the smallest budget
    (300 << 20, "400M", None,
     "--memory '400M' is more than this machine's physical memory (300 MiB) (a build process needs at least "
     "400 MiB: build on a larger machine or on --scheduler)"),
])
def test_memory_advice_is_a_budget_the_parser_accepts(tmp_path, cli_error, monkeypatch, small, physical,
                                                      value, workers, fragment):
    if workers:
        pytest.importorskip("distributed")
    from tealeaves.index import memory as build

    monkeypatch.setattr(build, "physical_memory", lambda: (physical, "this machine's physical memory"))
    extra = ["--workers", workers] if workers else []
    cli_error(["index", "build", small, "-o", tmp_path / "out.tlx", "--memory", value, *extra], fragment)


def test_scheduler_workers_below_the_smallest_budget(tmp_path, cli_error, small):
    # before: "(give at most --memory 300M, or workers with more memory)", a size --memory refuses
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, memory_limit="300MiB",
                                  dashboard_address=":0", silence_logs=50) as cluster:
        address = cluster.scheduler_address
        cli_error(["index", "build", small, "-o", tmp_path / "x.tlx", "--scheduler", address, "--memory",
                   "400M"],
                  f"--memory 400 MiB is more than the memory limit of a Dask worker of {address} (300 MiB) "
                  "(give the workers a memory limit of at least 400 MiB, the smallest budget)")


def test_estimator_features_high_language_outside_the_table(tmp_path, run_cli, cli_error):
    # before: `--high bg` was "unknown language code 'bg'; known codes: ..." although the topics' keys and the
    # reference (the same rule) accepted bg, and `--high ro` on the same topics worked
    docs = ["cat dog mat", "dog mat rug", "sun moon star", "moon star sky", "cat rug mat", "sky sun star"] * 3
    rows = [{"id": i, "bg": d, "ro": d.replace("cat", "pisica")} for i, d in enumerate(docs)]
    ref = tmp_path / "ref"
    assert run_cli(["index", "build-aligned", _jsonl(tmp_path / "t.jsonl", rows), "-o", ref]).code == 0
    topics = _write(tmp_path / "k.json", json.dumps({"bg": [["cat", "dog"], ["sun", "moon"]],
                                                      "ro": [["pisica", "dog"], ["sun", "moon"]]}))
    sets = [set(d.split()) for d in docs]  # 'pisica' stands where 'cat' does
    want = [np.mean([brute_npmi_pair(sets, a, b.replace("pisica", "cat")) for a in bg for b in ro])
            for bg, ro in ((["cat", "dog"], ["pisica", "dog"]), (["sun", "moon"], ["sun", "moon"]))]
    for high, other in (("bg", "ro"), ("BG", "ro"), ("ro", "bg")):
        out = tmp_path / f"{high}.csv"
        res = run_cli(["estimator", "features", topics, "--reference", ref, "--rich", ref, "--high", high,
                       "--top", "2", "-o", out])
        assert res.code == 0, res.err
        lines = out.read_text(encoding="utf-8").splitlines()
        header = lines[1].split(",")
        rows_out = [dict(zip(header, line.split(","))) for line in lines[2:]]
        assert [r["lang"] for r in rows_out] == [other, other]
        assert [float(r["target"]) for r in rows_out] == pytest.approx(want, abs=1e-12)
    cli_error(["estimator", "features", topics, "--reference", ref, "--high", "sv", "--top", "2", "-o",
               tmp_path / "x.csv"], "one of them --high sv; the topics have ['bg', 'ro']")
