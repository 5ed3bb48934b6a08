"""Odd inputs of the word lookup without a decoded vocabulary (``ReferenceIndex.word_ids``, the compiled
``wordtable._find_words`` behind it, and ``coherence.measure._word_table``, through which every
``Coherence(...).score(topics, index)`` and ``tealeaves coherence`` looks its topic words up).

Words that are not strings (int, bytes, None, float, bool, a NumPy integer, a list), ``words`` itself one
string, bytes, None or a number; NumPy arrays of words (1-D, empty, 2-D, object, bytes); numpy.str_ and
str subclasses (one overriding ``encode``, ``__hash__`` and ``__eq__``); no words; the empty word; NUL
bytes; lone surrogates; words of megabytes; 100,000 words; a word repeated 1,000 times; words that differ
only by Unicode normalisation (NFC, NFD, NFKC), case, or spaces around them; generators, tuples, dicts.
Indexes whose word bytes were changed and the checksum re-stamped (a new word; a repeated word, also made
in memory and opened with ``verify=False``; bytes that are not UTF-8), truncated, rewritten in place or
replaced since a recorded open, and changed, truncated, replaced or removed between the open and the
lookup; eight threads looking words up in one index while a ninth decodes its vocabulary; the
``tealeaves coherence`` command over topics files of such words.

Each lookup runs in a subprocess (a crash is a signal, a hang a timeout) on an index reopened from the
verified-state cache (the vocabulary not decoded: its UTF-8 bytes are scanned), on the same file with the
vocabulary decoded first (its dictionary answers), and on the index made in memory.  The oracle:
``{w: i for i, w in enumerate(index.vocabulary)}.get(w, -1)`` of the decoded vocabulary, and the scores
of an index whose vocabulary was decoded before scoring.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
import unicodedata

import numpy as np
import pytest

from conftest import REPO
from tealeaves.coherence import Coherence
from tealeaves.index import ReferenceIndex, index_from_token_lists

#: A word of two megabytes, in the index of the lookups (:data:`_DOCS`).
_LONG = "x" * 2_000_000

#: The index of the lookups: words in several scripts, ones that differ by case, spaces, normalisation
#: and final sigma, the empty word, a NUL byte, a word of two megabytes, 2,000 words ``w0`` .. ``w1999``;
#: 3,000,000 tokens of ``gas``, so that the long word is not taken for unsegmented text.
_DOCS = f"""[["oil", "gas", "Oil", "oil ", " oil", "", "a\\u0000b", "caf\\u00e9", "e\\u0301", "\\ufb01",
             "\\u1230\\u120b\\u121d", "\\U0001F600", "\\u03a3", "\\u03c3", "\\u03c2", "\\u00a0"],
            ["gas", "x" * {len(_LONG)}], [f"w{{i}}" for i in range(2000)], ["gas"] * 3_000_000]"""

#: What every subprocess runs first: the imports, the str subclasses, the outcome of a call as JSON.
_PRELUDE = '''
import json, os, sys, threading, unicodedata
import numpy as np
from tealeaves.errors import TealeavesError
from tealeaves.index import ReferenceIndex, index_from_token_lists

class Plain(str):
    pass

class Devious(str):
    """A str subclass whose encode, hash and equality say nothing of its characters."""
    def encode(self, *args, **kwargs):
        return b"gas"
    def __hash__(self):
        return 1
    def __eq__(self, other):
        return False
    __ne__ = lambda self, other: True

def outcome(call):
    try:
        out = call()
    except TealeavesError as exc:
        return ["error", type(exc).__name__, str(exc)]
    except Exception as exc:  # not a tealeaves error: the test fails, naming it
        return ["not a tealeaves error", type(exc).__name__, str(exc)]
    assert isinstance(out, np.ndarray) and out.dtype == np.int64 and out.ndim == 1, (type(out), out)
    return out.tolist()

def age(path):
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - 60 * 10**9))
    return path

def recorded(index, path):
    """``index`` saved to ``path``, aged and opened once (its checks recorded); the path."""
    index.save(path)
    ReferenceIndex.load(age(path))
    return path

def lazy(path):
    ix = ReferenceIndex.load(path)
    assert "vocabulary" not in ix.__dict__, "a recorded open decoded the vocabulary"
    return ix

def oracle(vocabulary, words):
    table = {w: i for i, w in enumerate(vocabulary)}
    return [table.get(str.__str__(w), -1) for w in words]  # a word is its characters

def load_fuzz():
    import importlib.util
    spec = importlib.util.spec_from_file_location("index_fuzz", os.path.join(REPO, "benchmarks",
                                                                                   "index_fuzz.py"))
    fuzz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzz)
    return fuzz
'''


def _run(code: str, tmp, timeout: float = 90) -> dict:
    """Run :data:`_PRELUDE` and ``code`` in a fresh interpreter (this checkout's ``src``, a verified-state
    cache of its own under ``tmp``); ``code`` prints one JSON value last, returned.  A signal, a
    traceback or a hang fails the test."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")]),
           "TEALEAVES_CACHE_DIR": str(tmp / "cache")}
    env.pop("TEALEAVES_DEBUG", None)
    script = f"REPO = {str(REPO)!r}\nTMP = {str(tmp)!r}\n" + _PRELUDE + textwrap.dedent(code)
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                         timeout=timeout, cwd=tmp)
    assert run.returncode == 0, (run.returncode, run.stderr[-4000:])
    return json.loads(run.stdout.splitlines()[-1])


def _aged(path):
    stat = os.stat(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - 60 * 10**9))
    return path


# -- words: one subprocess asks every case of three indexes --------------------------------------------------
#: ``(name, expression of words, expected error fragment or None)``; the expression is evaluated in the
#: subprocess (``LONG``, ``np``, ``unicodedata``, ``Plain``, ``Devious`` in scope).
_WORDS = [
    ("no_words", "[]", None),
    ("empty_word", '[""]', None),
    ("nul_bytes", r'["a\x00b", "a", "a\x00", "\x00", "b"]', None),
    ("lone_surrogates", r'["\ud800", "oil\udcff", "\udfff\ud800", "\ud83d\ude00"[:1], "oil"]', None),
    ("only_lone_surrogates", r'["\ud800", "\udfff", "\ud800"]', None),
    ("surrogate_pair_as_two_code_points", r'["\ud83d\ude00", chr(0x1F600)]', None),
    ("case", '["oil", "OIL", "Oil", "oIl", "GAS"]', None),
    ("spaces_around", r'["oil ", " oil", "oil  ", "oil\t", "oil\n", "\u00a0", " ", "oil\u00a0"]', None),
    ("unicode_normalisation", '["caf\\u00e9", unicodedata.normalize("NFD", "caf\\u00e9"), "\\u00e9", '
                              '"e\\u0301", unicodedata.normalize("NFKC", "\\ufb01"), "\\ufb01"]', None),
    ("final_sigma", r'["\u03a3", "\u03c3", "\u03c2", "\u03a3".lower(), "\u03c2".upper()]', None),
    ("other_scripts", r'["\u1230\u120b\u121d", "\u1230\u120b", "\U0001F600", "\U0001F600x"]', None),
    ("repeated_word", '["oil"] * 1000 + ["gas", "nope", "oil", "nope", ""]', None),
    ("hundred_thousand_words", '[f"w{i}" for i in range(100_000)]', None),
    ("hundred_thousand_copies_of_one_missing_word", '["nope"] * 100_000', None),
    ("word_of_megabytes", "[LONG, LONG[:-1], LONG + 'x', LONG[:-1] + 'y', 'x' * 8_000_000]", None),
    ("numpy_str_words", '[np.str_("oil"), np.str_("gas"), np.str_("nope")]', None),
    ("str_subclass", '[Plain("oil"), Plain("nope"), Plain("")]', None),
    ("str_subclass_overriding_encode_hash_eq", '[Devious("oil"), Devious("nope"), "oil"]', None),
    ("numpy_array", 'np.array(["oil", "gas", "nope", "caf\\u00e9"])', None),
    ("empty_numpy_array", 'np.array([], dtype=str)', None),
    ("generator", '(w for w in ["gas", "oil"])', None),
    ("tuple", '("gas", "oil")', None),
    ("dict_keys", '{"gas": 0, "nope": 1}', None),
    ("int_word", '["oil", 3]', "words must be strings; got int 3"),
    ("bytes_word", '[b"oil"]', "words must be strings; got bytes"),
    ("none_word", '["oil", None]', "words must be strings; got NoneType"),
    ("float_nan_word", '[float("nan")]', "words must be strings; got float"),
    ("bool_word", '[True]', "words must be strings; got bool"),
    ("numpy_int_word", '[np.int64(0)]', "words must be strings; got int64"),
    ("list_word", '[["oil"]]', "words must be strings; got list"),
    ("numpy_bytes_array", 'np.array([b"oil"])', "words must be strings; got bytes_"),
    ("numpy_object_array_with_none", 'np.array(["oil", None], dtype=object)', "got NoneType"),
    ("numpy_2d_array", 'np.array([["oil", "gas"]])', "words must be strings; got ndarray"),
    ("one_string", '"oil"', "got one string 'oil'"),
    ("one_numpy_string", 'np.str_("oil")', "got one string"),
    ("one_bytes", 'b"oil"', "got one string b'oil'"),
    ("none", "None", "words must be a sequence of words; got NoneType"),
    ("int", "3", "words must be a sequence of words; got int"),
]


@pytest.fixture(scope="module")
def asked(tmp_path_factory):
    """``{case: {"lazy", "decoded", "memory", "oracle", "stayed_lazy"}}`` for every case of :data:`_WORDS`."""
    tmp = tmp_path_factory.mktemp("word_ids")
    cases = "{" + ", ".join(f"{name!r}: lambda: {expr}" for name, expr, _ in _WORDS) + "}"
    return _run(f"""
        LONG = "x" * {len(_LONG)}
        memory = index_from_token_lists({_DOCS})
        path = recorded(memory, os.path.join(TMP, "w.tlx"))
        decoded = ReferenceIndex.load(path)
        vocabulary = decoded.vocabulary
        out = {{}}
        for name, make in {cases}.items():
            ix = lazy(path)
            row = {{"lazy": outcome(lambda: ix.word_ids(make())),
                   "stayed_lazy": "vocabulary" not in ix.__dict__,
                   "decoded": outcome(lambda: decoded.word_ids(make())),
                   "memory": outcome(lambda: memory.word_ids(make()))}}
            try:
                row["oracle"] = oracle(vocabulary, list(make()))
            except Exception:
                row["oracle"] = None
            out[name] = row
        print(json.dumps(out))
    """, tmp)


@pytest.mark.parametrize(("case", "error"), [(name, error) for name, _, error in _WORDS if error is None],
                         ids=[name for name, _, error in _WORDS if error is None])
def test_word_ids_equal_the_decoded_vocabularys(asked, case, error):
    row = asked[case]
    assert row["stayed_lazy"]
    assert row["lazy"] == row["oracle"], case
    assert row["decoded"] == row["oracle"], case
    assert row["memory"] == row["oracle"], case


@pytest.mark.parametrize(("case", "error"), [(name, error) for name, _, error in _WORDS if error is not None],
                         ids=[name for name, _, error in _WORDS if error is not None])
def test_word_ids_refuse_what_is_not_words(asked, case, error):
    row = asked[case]
    for way in ("lazy", "decoded", "memory"):
        assert row[way][:2] == ["error", "ParameterError"], (case, way, row[way])
        assert error in row[way][2], (case, way, row[way])


def test_word_ids_cases_that_can_fail_do(asked):
    """The oracle sees a difference: found, missing and repeated words are all in the cases."""
    assert asked["case"]["lazy"] == [0, -1, 2, -1, -1]
    assert asked["unicode_normalisation"]["lazy"][:2] == [7, -1]  # the NFD spelling is another word
    assert asked["spaces_around"]["lazy"][:2] == [3, 4] and asked["spaces_around"]["lazy"][5] == 15
    assert asked["word_of_megabytes"]["lazy"] == [16, -1, -1, -1, -1]
    assert asked["hundred_thousand_words"]["lazy"][1999:2001] == [2016, -1]
    assert asked["str_subclass_overriding_encode_hash_eq"]["lazy"] == [0, -1, 0]
    assert asked["lone_surrogates"]["lazy"] == [-1, -1, -1, -1, 0]
    assert asked["no_words"]["lazy"] == [] and asked["empty_word"]["lazy"] == [5]


# -- coherence: scores through the lookup equal those of the decoded vocabulary ------------------------------
def test_coherence_scores_of_odd_words_equal_the_decoded_vocabularys(tmp_path):
    result = _run("""
        import math
        from tealeaves.coherence import Coherence
        docs = [["cat", "dog", "mat", "caf\\u00e9", "Cat", "a\\x00b", "x" * 100_000],
                ["dog", "mat", "rug", ""], ["sun", "moon", "star", "caf\\u00e9"],
                ["moon", "star", "sky", "x" * 100_000], ["cat", "rug"],
                ["rug"] * 300_000] * 4  # (rug: the long word is no sentence)
        path = recorded(index_from_token_lists(docs), os.path.join(TMP, "c.tlx"))
        topics = {
            "plain": [["cat", "dog", "mat"], ["sun", "moon", "star"]],
            "case": [["Cat", "dog", "CAT"], ["cat", "Dog", "mat"]],
            "normalisation": [["caf\\u00e9", "moon"], [unicodedata.normalize("NFD", "caf\\u00e9"), "moon"]],
            "spaces": [["cat ", "dog"], [" cat", "dog", "mat\\t"]],
            "nul_and_empty": [["a\\x00b", "cat"], ["", "dog", "a\\x00"]],
            "surrogates": [["\\ud800", "cat", "dog"], ["sun", "\\udfff"]],
            "long": [["x" * 100_000, "moon", "x" * 100_001], ["x" * 3_000_000, "cat"]],
            "none_found": [["nope", "zip"], ["a", "b", "c"]],
            "subclasses": [[np.str_("cat"), Plain("dog"), Devious("mat")]],
            "many": [[f"w{i}", "cat", "sun"] for i in range(2000)],
        }
        out = {}
        for measure in ("npmi", "umass", "c_v", "c_p"):
            for name, t in topics.items():
                ix = lazy(path)
                decoded = ReferenceIndex.load(path)
                decoded.vocabulary
                rows = []
                for index in (ix, decoded):
                    try:
                        res = Coherence(measure).score(t, index)
                        rows.append([[s.score, list(s.missing)] for s in res.topics])
                    except TealeavesError as exc:
                        rows.append(["error", type(exc).__name__, str(exc)])
                nan = rows[0][0] != "error" and any(s is not None and not math.isfinite(s)
                                                    for s, _ in rows[0])
                out[f"{measure}/{name}"] = {"lazy": rows[0], "decoded": rows[1], "nan": nan,
                                            "stayed_lazy": "vocabulary" not in ix.__dict__}
        print(json.dumps(out))
    """, tmp_path)
    assert len(result) == 40
    for key, row in result.items():
        assert row["lazy"] == row["decoded"], key
        assert row["lazy"][0] != "error", (key, row["lazy"])
        assert not row["nan"], key
        assert row["stayed_lazy"], key
    npmi = result["npmi/normalisation"]["lazy"]
    assert npmi[0][1] == [] and npmi[1][0] is None and len(npmi[1][1]) == 1  # NFD: another word, missing
    assert result["npmi/case"]["lazy"][0][1] == ["CAT"]
    assert result["npmi/long"]["lazy"][0][1] == ["x" * 100_001]
    assert result["npmi/subclasses"]["lazy"][0][1] == []  # each found by its characters


# -- threads -------------------------------------------------------------------------------------------------
def test_word_ids_from_eight_threads_at_once_on_one_index(tmp_path):
    result = _run("""
        words = [f"w{i}" for i in range(50_000)]
        path = recorded(index_from_token_lists([words[i::7] for i in range(7)]), os.path.join(TMP, "t.tlx"))
        ix = lazy(path)
        vocabulary = ReferenceIndex.load(path).vocabulary
        table = {w: i for i, w in enumerate(vocabulary)}
        rng = np.random.default_rng(0)
        asks = [[f"w{int(i)}" for i in rng.integers(0, 60_000, 3000)] for _ in range(64)]
        wrong, errors = [], []
        barrier = threading.Barrier(9)

        def ask(k):
            barrier.wait()
            for n in range(8):
                words = asks[(k * 8 + n) % len(asks)]
                try:
                    got = ix.word_ids(words).tolist()
                except BaseException as exc:
                    errors.append(repr(exc))
                    continue
                if got != [table.get(w, -1) for w in words]:
                    wrong.append(k)

        def decode():
            barrier.wait()
            ix.vocabulary  # the dictionary appears while the others look words up

        threads = [threading.Thread(target=ask, args=(k,)) for k in range(8)]
        threads.append(threading.Thread(target=decode))
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        print(json.dumps({"alive": sum(t.is_alive() for t in threads), "wrong": wrong, "errors": errors}))
    """, tmp_path)
    assert result == {"alive": 0, "wrong": [], "errors": []}


# -- indexes changed -----------------------------------------------------------------------------------------
_SMALL = '[["oil", "gas", "caf\\u00e9"], ["gas", "coal"], ["oil", "coal", "w\\u00f6rd"]]'


def test_index_with_a_changed_word_re_stamped_answers_its_new_words(tmp_path):
    result = _run(f"""
        fuzz = load_fuzz()
        path = recorded(index_from_token_lists({_SMALL}), os.path.join(TMP, "a.tlx"))
        header, arrays, _ = fuzz.split(open(path, "rb").read())
        blob = arrays["vocab_blob"]
        start = int(arrays["vocab_offsets"][1])
        blob[start + 2] = ord("z")  # "gas" -> "gaz": a new word, still distinct
        data = fuzz.serialise(header, arrays)
        fresh = os.path.join(TMP, "fresh.tlx")
        open(fresh, "wb").write(data)
        st = os.stat(path)
        with open(path, "r+b") as fh:  # the recorded file rewritten in place, its mtime restored
            fh.write(data)
            fh.truncate()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        words = ["gas", "gaz", "oil", "coal", "caf\\u00e9", "w\\u00f6rd"]
        out = {{}}
        for name, p in (("fresh", fresh), ("rewritten", path)):
            ix = ReferenceIndex.load(p)
            out[name] = {{"ids": outcome(lambda: ix.word_ids(words))}}
            ReferenceIndex.load(age(p))  # recorded again
            out[name]["again"] = outcome(lambda: lazy(p).word_ids(words))
            out[name]["oracle"] = oracle(ReferenceIndex.load(p).vocabulary, words)
        print(json.dumps(out))
    """, tmp_path)
    for name in ("fresh", "rewritten"):
        assert result[name]["ids"] == result[name]["again"] == result[name]["oracle"] == [-1, 1, 0, 3, 2, 4]


@pytest.mark.parametrize("verify", [True, False])
def test_index_with_a_repeated_word_is_refused_at_load(tmp_path, verify):
    result = _run(f"""
        fuzz = load_fuzz()
        path = recorded(index_from_token_lists({_SMALL}), os.path.join(TMP, "a.tlx"))
        header, arrays, _ = fuzz.split(open(path, "rb").read())
        off = arrays["vocab_offsets"]
        arrays["vocab_blob"][off[1]:off[2]] = np.frombuffer(b"oil", np.uint8)  # "gas" -> "oil": twice
        data = fuzz.serialise(header, arrays)
        fresh = os.path.join(TMP, "fresh.tlx")
        open(fresh, "wb").write(data)
        st = os.stat(path)
        with open(path, "r+b") as fh:
            fh.write(data)
            fh.truncate()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        out = {{}}
        for name, p in (("fresh", fresh), ("rewritten", path)):
            out[name] = outcome(lambda: ReferenceIndex.load(p, verify={verify}).word_ids(["oil", "gas"]))
        in_memory = ReferenceIndex(arrays, header)  # made from the arrays by hand: checked at its first use
        out["memory"] = outcome(lambda: in_memory.word_ids(["oil", "gas"]))
        print(json.dumps(out))
    """, tmp_path)
    for name in ("fresh", "rewritten", "memory"):
        assert result[name][:2] == ["error", "IndexIntegrityError"], (name, result[name])
        assert "repeated word" in result[name][2], result[name]


def test_index_whose_word_bytes_are_not_utf8_is_refused(tmp_path):
    result = _run(f"""
        fuzz = load_fuzz()
        path = recorded(index_from_token_lists({_SMALL}), os.path.join(TMP, "a.tlx"))
        header, arrays, _ = fuzz.split(open(path, "rb").read())
        out = {{}}
        for name, bad in (("invalid_byte", b"\\xff"), ("surrogate", b"\\xed\\xa0\\x80"), ("nul", b"\\x00")):
            a = {{k: v.copy() for k, v in arrays.items()}}
            blob = np.frombuffer(bytes(a["vocab_blob"][:3]) + bad + bytes(a["vocab_blob"][3:]), np.uint8)
            a["vocab_blob"] = blob.copy()
            a["vocab_offsets"][1:] += len(bad)  # "oil" + bad: the first word
            p = os.path.join(TMP, name + ".tlx")
            open(p, "wb").write(fuzz.serialise(header, a))
            out[name] = outcome(lambda: ReferenceIndex.load(p).word_ids(["oil", "oil\\x00", "gas"]))
        print(json.dumps(out))
    """, tmp_path)
    for name in ("invalid_byte", "surrogate"):
        assert result[name][:2] == ["error", "IndexIntegrityError"] and "UTF-8" in result[name][2], result
    assert result["nul"] == [-1, 0, 1]  # a NUL byte is a character of a word


def test_index_truncated_since_its_recorded_open_is_refused(tmp_path):
    result = _run(f"""
        path = recorded(index_from_token_lists({_SMALL}), os.path.join(TMP, "a.tlx"))
        out = {{}}
        size = os.path.getsize(path)
        for cut in (size - 1, size // 2, 64, 10, 0):
            os.truncate(path, cut)
            out[str(cut)] = outcome(lambda: ReferenceIndex.load(path).word_ids(["oil"]))
        print(json.dumps(out))
    """, tmp_path)
    for cut, row in result.items():
        assert row[:2] == ["error", "IndexIntegrityError"], (cut, row)


@pytest.mark.parametrize("change", ["same_size_mtime_restored", "appended", "truncated"])
def test_index_changed_in_place_between_open_and_word_ids_is_refused(tmp_path, change):
    result = _run(f"""
        path = recorded(index_from_token_lists({_SMALL}), os.path.join(TMP, "a.tlx"))
        ix = lazy(path)
        decoded = lazy(path)
        decoded.vocabulary
        st = os.stat(path)
        data = open(path, "rb").read()
        change = {change!r}
        if change == "same_size_mtime_restored":
            at = data.rindex(b"coal")
            with open(path, "r+b") as fh:
                fh.seek(at)
                fh.write(b"goal")
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        elif change == "appended":
            open(path, "ab").write(b"x")
        else:
            os.truncate(path, len(data) // 2)
        print(json.dumps({{"lazy": outcome(lambda: ix.word_ids(["oil", "coal"])),
                          "decoded": outcome(lambda: decoded.word_ids(["oil", "coal"]))}}))
    """, tmp_path)
    assert result["lazy"][:2] == ["error", "IndexIntegrityError"], result
    assert "changed on disk since it was opened" in result["lazy"][2]
    # the decoded vocabulary is the opened file's: its ids, and no postings are read
    assert result["decoded"] == [0, 3]


@pytest.mark.parametrize("change", ["replaced", "removed"])
def test_index_replaced_or_removed_between_open_and_word_ids_answers_the_opened_file(tmp_path, change):
    result = _run(f"""
        path = recorded(index_from_token_lists({_SMALL}), os.path.join(TMP, "a.tlx"))
        ix = lazy(path)
        opened = ReferenceIndex.load(path).vocabulary
        if {change!r} == "replaced":
            other = index_from_token_lists([["coal", "oil", "new"], ["gas"]]).save(os.path.join(TMP, "b.tlx"))
            os.replace(other, path)
        else:
            os.remove(path)
        words = ["oil", "gas", "coal", "new", "caf\\u00e9"]
        print(json.dumps({{"ids": outcome(lambda: ix.word_ids(words)), "oracle": oracle(opened, words)}}))
    """, tmp_path)
    assert result["ids"] == result["oracle"] == [0, 1, 3, -1, 2]


# -- the command line ----------------------------------------------------------------------------------------
_CLI_DOCS = [["cat", "dog", "mat", "café", "Cat", "x" * 100_000], ["dog", "mat", "rug"],
             ["sun", "moon", "star", "café"], ["moon", "star", "sky", "x" * 100_000], ["cat", "rug", "mat"],
             [f"w{i}" for i in range(3000)], ["rug"] * 300_000] * 3  # (rug: the long word is no sentence)


@pytest.fixture(scope="module")
def cli_index_bytes(tmp_path_factory):
    """The bytes of the index of :data:`_CLI_DOCS`."""
    return index_from_token_lists(_CLI_DOCS).save(tmp_path_factory.mktemp("cli") / "ref.tlx").read_bytes()


@pytest.fixture
def cli_reference(cli_index_bytes, tmp_path, monkeypatch):
    """An index file opened once (its checks recorded: ``tealeaves coherence`` reopens it lazily)."""
    monkeypatch.setenv("TEALEAVES_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "ref.tlx"
    path.write_bytes(cli_index_bytes)
    ReferenceIndex.load(_aged(path))
    return path


def _decoded_scores(path, topics, n_top=10):
    index = ReferenceIndex.load(path)
    index.vocabulary  # noqa: B018 - decoded first: the oracle
    result = Coherence("npmi").score([t[:n_top] for t in topics], index)
    return [[t.score, list(t.missing)] for t in result.topics]


@pytest.mark.cli_subprocess
def test_coherence_cli_topics_of_odd_words_score_as_the_decoded_vocabulary(cli_reference, run_cli, tmp_path):
    nfd = unicodedata.normalize("NFD", "café")
    topics = [["cat", "dog", "mat"], ["Cat", "dog", "CAT"], ["café", "moon", "star"], [nfd, "moon", "star"],
              ["x" * 100_000, "moon", "star"], ["x" * 99_999, "cat", "dog"], ["ﬁ", "fi", "cat"],
              [f"w{i}" for i in range(3000)], ["nope", "zip"]]
    topics += [["cat", f"w{i}", f"w{i + 1}"] for i in range(0, 4000, 2)]
    path = tmp_path / "topics.txt"
    path.write_text("".join(" ".join(t) + "  \n" for t in topics), encoding="utf-8")  # spaces at ends
    run = run_cli(["coherence", "--reference", cli_reference, "--topics", path, "--format", "json"])
    assert run.code == 0, run.err
    got = [[t["score"], t["missing"]] for t in json.loads(run.out)["topics"]]
    expected = _decoded_scores(cli_reference, topics)
    assert got == expected
    assert not any(s is not None and not math.isfinite(s) for s, _ in got)
    assert got[3][1] == [nfd] and got[2][1] == [] and got[5][1] == ["x" * 99_999]


@pytest.mark.cli_subprocess
@pytest.mark.parametrize(("content", "fragment"), [
    (b"cat dog\x00 mat\n", "binary file"),
    (b"cat \xed\xa0\x80 dog\n", "not valid utf-8"),
    (b"cat \xff dog\n", "not valid utf-8"),
    (b"", "is empty"),
    (b"cat CAT cat\n", "repeats 'cat'"),
], ids=["nul_byte", "surrogate_bytes", "invalid_byte", "empty", "repeated_word"])
def test_coherence_cli_topics_file_of_bad_words_is_one_error_line(cli_reference, cli_error, tmp_path, content,
                                                                  fragment):
    path = tmp_path / "topics.txt"
    path.write_bytes(content)
    cli_error(["coherence", "--reference", cli_reference, "--topics", path], fragment)


@pytest.mark.cli_subprocess
@pytest.mark.parametrize("damage", ["repeated_word", "truncated"])
def test_coherence_cli_damaged_index_is_one_error_line(cli_reference, cli_error, tmp_path, damage):
    fuzz = _load_fuzz()
    raw = cli_reference.read_bytes()
    if damage == "repeated_word":
        header, arrays, _ = fuzz.split(raw)
        off = arrays["vocab_offsets"]
        arrays["vocab_blob"][off[1]:off[2]] = np.frombuffer(b"cat", np.uint8)  # "dog" -> "cat"
        data, fragment = fuzz.serialise(header, arrays), "repeated word"
    else:
        data, fragment = raw[:len(raw) // 2], "truncated"
    st = os.stat(cli_reference)
    with open(cli_reference, "r+b") as fh:  # the recorded file rewritten in place, its mtime restored
        fh.write(data)
        fh.truncate()
    os.utime(cli_reference, ns=(st.st_atime_ns, st.st_mtime_ns))
    topics = tmp_path / "topics.txt"
    topics.write_text("cat dog mat\n", encoding="utf-8")
    cli_error(["coherence", "--reference", cli_reference, "--topics", topics], fragment)


def _load_fuzz():
    import importlib.util

    spec = importlib.util.spec_from_file_location("index_fuzz", REPO / "benchmarks" / "index_fuzz.py")
    fuzz = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzz)
    return fuzz
