"""Three inputs that were trusted: a user-supplied string holding the signature separator, a memory budget
larger than the machine, and a Wikipedia language outside tealeaves' table.  Each case asserts a clean error
(exit code, ``tealeaves: error:`` and a fragment, no traceback; the error class through the API), or a
result equal to an independent computation."""
from __future__ import annotations

import json
import math
import re
from itertools import product

import pytest

from tealeaves.corpus.aligned import LanguageMismatchError, UnknownLanguageError, default_preprocessor
from tealeaves.errors import InputFormatError, ParameterError
from tealeaves.signature import Signature


def _write(path, text):
    path.write_text(text, encoding="utf-8", newline="")
    return path


def _jsonl(path, rows):
    return _write(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


# == 1. signatures: every user-supplied string round-trips ================================================
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


# == 2. --memory: bounded below and by the machine ========================================================
@pytest.fixture
def small(tmp_path):
    return _jsonl(tmp_path / "d.jsonl", [{"id": 1, "text": "cat dog"}, {"id": 2, "text": "cat mat"}])


@pytest.fixture
def small_tuples(tmp_path):
    return _jsonl(tmp_path / "t.jsonl", [{"id": 1, "en": "cat dog", "sv": "katt hund"}])


def _physical(monkeypatch, size):
    from tealeaves.index import memory as build

    monkeypatch.setattr(build, "physical_memory", lambda: (size, "this machine's physical memory"))


COMMANDS = ["index build", "index build-aligned"]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("value, fragment", [
    ("10000T", "--memory '10000T' is more than this machine's physical memory ("),
    ("nan", "--memory 'nan' is not a size"),
    ("inf", "--memory 'inf' is not a size"),
    ("1e400G", "--memory '1e400G' is not a size"),
    ("399M", "--memory '399M' is below the smallest budget (400 MiB)"),
    ("1GG", "--memory '1GG' is not a size"),
])
def test_memory_out_of_bounds(tmp_path, cli_error, small, small_tuples, command, value, fragment):
    # before: --memory 10000T was accepted: the chunk size followed it, so nothing bounded the memory
    src = small_tuples if "aligned" in command else small
    cli_error([*command.split(), src, "-o", tmp_path / "out", "--memory", value], fragment)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", COMMANDS)
def test_memory_ceiling_is_the_physical_memory(tmp_path, cli_error, run_cli, monkeypatch, small, small_tuples,
                                               command):
    _physical(monkeypatch, 1 << 30)
    src = small_tuples if "aligned" in command else small
    r = cli_error([*command.split(), src, "-o", tmp_path / "out", "--memory", "1025M"],
                  "--memory '1025M' is more than this machine's physical memory (1 GiB)")
    assert "give at most 1024M" in r.err
    assert run_cli([*command.split(), src, "-o", tmp_path / "out", "--memory", "1024M"]).code == 0


@pytest.mark.parametrize("command", COMMANDS)
def test_memory_of_local_workers_is_summed(tmp_path, cli_error, monkeypatch, small, small_tuples, command):
    pytest.importorskip("distributed")
    _physical(monkeypatch, 3 << 29)  # 1.5 GiB: one 1G worker fits, two do not
    src = small_tuples if "aligned" in command else small
    r = cli_error([*command.split(), src, "-o", tmp_path / "out", "--memory", "1G", "--workers", "2"],
                  "--memory 1 GiB for each of --n-jobs 2 is 2 GiB in all, more than this machine's physical "
                  "memory (1.5 GiB)")
    assert "give at most 768M, or fewer --n-jobs" in r.err


def test_memory_on_a_scheduler_is_bounded_by_its_workers(tmp_path, cli_error, run_cli, monkeypatch, small):
    distributed = pytest.importorskip("distributed")
    _physical(monkeypatch, 450 << 20)  # this machine's memory does not bound a remote cluster
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, memory_limit="600MiB",
                                  dashboard_address=":0", silence_logs=50) as cluster:
        address = cluster.scheduler_address
        argv = ["index", "build", small, "-o", tmp_path / "x.tlx", "--scheduler", address, "--memory"]
        cli_error([*argv, "1G"], f"--memory 1 GiB is more than the memory limit of a Dask worker of "
                                 f"{address} (600 MiB)")
        assert not (tmp_path / "x.tlx").exists()
        ok = run_cli([*argv, "500M"])
        assert ok.code == 0, ok.err


def test_the_ceiling_is_the_physical_memory_or_a_lower_container_limit(tmp_path, monkeypatch):
    import os

    from tealeaves.index import memory as build

    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    limits = [_write(tmp_path / "v2", "max\n"), _write(tmp_path / "v1", f"{1 << 30}\n")]
    monkeypatch.setattr(build, "CGROUP_LIMITS", (str(limits[0]), str(tmp_path / "missing")))
    assert build.physical_memory() == (total, "this machine's physical memory")  # 'max': no limit
    monkeypatch.setattr(build, "CGROUP_LIMITS", (str(limits[0]), str(limits[1])))
    assert build.physical_memory() == (min(total, 1 << 30), "this container's memory limit"
                                       if total > 1 << 30 else "this machine's physical memory")
    with pytest.raises(ParameterError, match=re.escape("(1 GiB)")):
        build.parse_memory("2G")


def test_parse_memory_units():
    from tealeaves.index.memory import parse_memory

    assert parse_memory("1G") == 1 << 30
    assert parse_memory("2.5GB") == int(2.5 * (1 << 30))
    assert parse_memory("800MiB") == parse_memory("800m") == 800 << 20
    assert parse_memory(str(500 << 20)) == 500 << 20


@pytest.mark.parametrize("memory, fragment", [
    (10 ** 16, "memory=10000000000000000 is more than this machine's physical memory"),
    (1.5e9, "memory must be a whole number >= 419430400, got 1500000000.0 (float)"),
    (100, "memory must be a whole number >= 419430400, got 100"),
    (True, "memory must be a whole number"),
])
@pytest.mark.parametrize("builder", ["build_streaming", "build_aligned_reference"])
def test_memory_argument_of_the_builders(tmp_path, small, small_tuples, memory, fragment, builder):
    from tealeaves.index.aligned import build_aligned_reference
    from tealeaves.index.streaming import build_streaming

    fn, src = ((build_streaming, small) if builder == "build_streaming" else
               (build_aligned_reference, small_tuples))
    with pytest.raises(ParameterError, match=re.escape(fragment)):
        fn([src], tmp_path / "out", memory=memory)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.jsonl", "t.jsonl"]  # no output, no work folder


# == 3. language codes: what index build-aligned writes, cnpmi reads =======================================
BG_EN = [
    {"id": "a", "bg": "Котката спи на килима.", "eng": "The cat sleeps on the rug."},
    {"id": "b", "bg": "Кучето и котката играят.", "eng": "The dog and the cat play."},
    {"id": "c", "bg": "Кучето лае силно.", "eng": None},
    {"id": "d", "bg": "Килима е червен.", "eng": "The rug is red and the dog sleeps."},
    {"id": "e", "eng": "A cat."},
]
BG_TOPICS = {"bg": [["котката", "кучето", "килима"], ["спи", "лае", "червен"]],
             "en": [["cat", "dog", "rug"], ["sleeps", "play", "absentword"]]}


def _sets(lang, key):
    pre = default_preprocessor(lang, max_df=1.0)
    return [set(pre.tokenize(t[key])) if t.get(key) else None for t in BG_EN]


def _npmi(pab, pa, pb):
    if pa == 0 or pb == 0:
        return 0.0  # a word absent from the reference (absent=zero)
    if pab == 0:
        return -1.0  # never together (zero=limit)
    if pab == 1:
        return 1.0
    return math.log(pab / (pa * pb)) / -math.log(pab)


def brute_cnpmi(words_bg, words_en):
    """CNPMI of one topic by sets over the tuples holding both a bg and an en document."""
    pairs = [(a, b) for a, b in zip(_sets("bg", "bg"), _sets("en", "eng"), strict=True) if a and b]
    n = len(pairs)
    vals = [_npmi(sum(a in x and b in y for x, y in pairs) / n, sum(a in x for x, _ in pairs) / n,
                  sum(b in y for _, y in pairs) / n) for a, b in product(words_bg, words_en)]
    return sum(vals) / len(vals)


@pytest.fixture
def bg_en(tmp_path, run_cli):
    """A bg-en aligned reference built from JSON Lines with no --languages, and a topics file."""
    out = tmp_path / "bgref"
    r = run_cli(["index", "build-aligned", _jsonl(tmp_path / "bg-en.jsonl", BG_EN), "-o", out])
    assert r.code == 0, r.err
    assert "5 tuples (bg: 4, en: 4 documents)" in r.out
    return out, _write(tmp_path / "topics.json", json.dumps(BG_TOPICS, ensure_ascii=False))


def test_cnpmi_scores_a_bg_en_reference_built_from_json_lines(bg_en, run_cli):
    # before: `index build-aligned` refused the 'bg' key without --languages bg,en, and with it the reference
    # was built but `cnpmi` refused the topics ("unknown language code 'bg'; known codes: ...")
    ref, topics = bg_en
    result = run_cli(["cnpmi", topics, "--reference", ref, "--top", "3", "--format", "json"])
    assert result.code == 0, result.err
    out = json.loads(result.out)["cnpmi"]
    expected = [brute_cnpmi(BG_TOPICS["bg"][k], BG_TOPICS["en"][k]) for k in range(2)]
    assert out["per_topic"] == pytest.approx(expected, abs=1e-12)
    assert expected[0] != expected[1]  # the topics are told apart
    assert Signature.parse(out["signature"]).fields["langs"] == "bg-en"


def test_parallel_files_and_the_api_read_the_same_codes(tmp_path, bg_en, run_cli):
    from tealeaves.multilingual import measures as M
    from tealeaves.multilingual.reference import resolve_reference

    both = [t for t in BG_EN if t.get("bg") and t.get("eng")]
    bg = _write(tmp_path / "bg.txt", "".join(t["bg"] + "\n" for t in both))
    en = _write(tmp_path / "en.txt", "".join(t["eng"] + "\n" for t in both))
    ids = _write(tmp_path / "ids.txt", "".join(t["id"] + "\n" for t in both))
    out = tmp_path / "lines"
    r = run_cli(["index", "build-aligned", "--lang", f"BG={bg}", "--lang", f"eng={en}", "--doc-ids", ids,
                 "-o", out])
    assert r.code == 0, r.err
    ref, _ = bg_en
    scores = M.cnpmi({"bg": BG_TOPICS["bg"], "eng_Latn": BG_TOPICS["en"]},
                     resolve_reference(str(out), ["bg", "en"]))
    expected = [brute_cnpmi(BG_TOPICS["bg"][k], BG_TOPICS["en"][k]) for k in range(2)]
    assert scores.per_topic.tolist() == pytest.approx(expected, abs=1e-12)
    assert resolve_reference(str(ref), ["bg", "en"]).languages == ["bg", "en"]


@pytest.mark.parametrize("key, error, fragment", [
    ("bulgarian", UnknownLanguageError, "'bulgarian' is not a language code (ISO 639-1/639-3 style"),
    ("b1", UnknownLanguageError, "'b1' is not a language code"),
    ("xx", LanguageMismatchError, "has no 'xx' side (it has ['bg', 'en'])"),
    ("bul", LanguageMismatchError, "has no 'bul' side"),  # 639-3 codes outside the table are not mapped
])
def test_cnpmi_language_keys(bg_en, cli_error, tmp_path, key, error, fragment):
    from tealeaves.multilingual import measures as M
    from tealeaves.multilingual.reference import resolve_reference

    ref, _ = bg_en
    topics = {key: BG_TOPICS["bg"], "en": BG_TOPICS["en"]}
    cli_error(["cnpmi", _write(tmp_path / "k.json", json.dumps(topics)), "--reference", ref], fragment)
    with pytest.raises(error, match=re.escape(fragment)):
        M.cnpmi(topics, resolve_reference(str(ref), ["bg", "en"]))


@pytest.mark.parametrize("code, expected", [("eng_Latn", "en"), ("BG", "bg"), (" sv ", "sv"), ("fil", "tl"),
                                            ("zh-yue", "zh-yue"), ("be-tarask", "be-tarask"), ("bul", "bul")])
def test_language_code_rule(code, expected):
    from tealeaves.corpus.aligned import language_code

    assert language_code(code) == expected


@pytest.mark.parametrize("code", ["klingon", "e", "", "b g", "e1", "\u212ab", "bg_Cyrl", "en-", "zh-y"])
def test_language_code_rule_refuses(code):
    from tealeaves.corpus.aligned import language_code

    with pytest.raises(UnknownLanguageError, match="is not a language code"):
        language_code(code)


def test_tuple_keys_follow_the_same_rule(tmp_path, cli_error):
    # a key that is no language (e.g. a stray "title") is refused, as it was; a bg key needs no --languages
    src = _jsonl(tmp_path / "t.jsonl", [{"id": 1, "bg": "котка", "en": "cat", "title": "x"}])
    cli_error(["index", "build-aligned", src, "-o", tmp_path / "r"], "'title' is not a language code",
              progress=True)


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


def test_pltm_fit_on_bg_en_and_its_topics_scored_by_cnpmi(tmp_path, bg_en, run_cli):
    # before: `pltm fit` refused the bg tuples ("unknown language code 'bg'; known codes: ..."), so a bg-en
    # model could not be fitted on the texts its reference was built from
    from tealeaves.multilingual.pltm_io import load_pltm

    ref, _ = bg_en
    fit = run_cli(["pltm", "fit", _jsonl(tmp_path / "fit.jsonl", BG_EN), "-k", "2", "--iterations", "4",
                   "--chains", "1", "--max-df", "1.0", "-o", tmp_path / "m"])
    assert fit.code == 0, fit.err
    model, preprocessors = load_pltm(tmp_path / "m")
    assert model.languages_ == ["bg", "en"]
    for lang, key in (("bg", "bg"), ("en", "eng")):  # every token of the tuples, no language mixed up
        assert set(preprocessors[lang].vocabulary_.words) == set().union(*filter(None, _sets(lang, key)))
    topics = json.loads((tmp_path / "m" / "topics.json").read_text(encoding="utf-8"))
    result = run_cli(["cnpmi", tmp_path / "m" / "topics.json", "--reference", ref, "--top", "3",
                      "--format", "json"])
    assert result.code == 0, result.err
    want = [brute_cnpmi(topics["bg"][k][:3], topics["en"][k][:3]) for k in range(2)]
    assert json.loads(result.out)["cnpmi"]["per_topic"] == pytest.approx(want, abs=1e-12)
