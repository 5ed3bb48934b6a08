"""Bad inputs of what session 3 changed: ``index build-aligned`` (tuples, ``--lang``, ``--dump``), aligned
reference folders read by ``cnpmi --reference``, the batched tokeniser of ``index build``, corrupted
``.tlx`` files, ``reproduce hao2018`` options and the frequent-pair coherence path.  Each case asserts a
clean error (exit code, ``tealeaves: error:``, a fragment), a documented value, or equality with an
independent computation."""
from __future__ import annotations

import json
import re
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
@pytest.mark.parametrize("command, option", [("index build-aligned", "--lang"), ("pltm fit", "--lang"),
                                             ("index build-aligned", "--dump")])
def test_option_given_twice_for_one_language(tmp_path, cli_error, option, command):
    en, sv = _write(tmp_path / "en.txt", "cat\ndog\n"), _write(tmp_path / "sv.txt", "katt\nhund\n")
    ids = _write(tmp_path / "ids.txt", "a\nb\n")
    if option == "--lang":  # before: the second en= silently replaced the first ("holds text in 1 language")
        argv = ["--lang", f"en={en}", "--lang", f"en={sv}", "--doc-ids", ids]
    else:  # before: the second en= silently replaced the first
        argv = ["--links", en, "--dump", f"en={en}", "--dump", f"en={sv}", "--dump", f"sv={sv}"]
    cli_error([*command.split(), *argv, "-o", tmp_path / "out"], f"{option} en= is given twice")


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


# -- index build: the batched tokeniser against Preprocessor.tokenize ------------------------------------
ODD_TEXTS = {
    "NUL": "cat\x00dog", "lone surrogates": "cat \ud800 dog\udfff mat",
    "U+2028/2029": "cat\u2028dog\u2029mat",
    "1 MB word": "a" * 1_000_000 + " cat", "1 MB non-ASCII word": "é" * 1_000_000 + " dog",
    "only stop words": "the of and an", "only digits": "123 4567 89", "empty": "", "CRLF": "cat\r\ndog\r\n",
    "case mappings": "Straße İstanbul ΣΑΣ ǅ ﬁne", "astral": "𝐀𝐁𝐂 cat 😀dog",
    "combining": "cafe\u0301 nai\u0308ve",
    "BOM inside": "\ufeffcat", "joiners": "ca\u200dt do\u200cg",
}




@pytest.mark.parametrize("name", list(ODD_TEXTS))
def test_scan_equals_tokenize(name):
    from tealeaves.corpus.preprocess import LETTERS_ONLY_PATTERN, LETTERS_PATTERN, Preprocessor

    for settings in ({"stop_words": "english"}, {"stop_words": None},
                     {"token_pattern": LETTERS_ONLY_PATTERN}):
        pre = Preprocessor(**{"token_pattern": LETTERS_PATTERN, **settings})
        texts = [ODD_TEXTS[name], "cat dog", ODD_TEXTS[name]]
        assert pre.scan(texts).tokens() == [pre.tokenize(t) for t in texts]


def test_index_build_of_odd_texts_equals_tokenize(tmp_path, run_cli):
    """The index `index build` writes from JSON Lines (escapes \\u0000, \\ud800 ...) holds, document by
    document, exactly the tokens Preprocessor.tokenize gives (with the index's recorded settings)."""
    from collections import Counter

    from tealeaves.corpus.preprocess import Preprocessor
    from tealeaves.index import ReferenceIndex

    texts = list(ODD_TEXTS.values())
    src = _write(tmp_path / "odd.jsonl", "".join(json.dumps({"id": i, "text": t}) + "\n"
                                                 for i, t in enumerate(texts)))
    # the two 1 MB words are nearly all the letters: refused as unsegmented text (test_unsegmented.py)
    refused = run_cli(["index", "build", src, "-o", tmp_path / "odd.tlx"])
    assert refused.code == 1 and "looks unsegmented: 100% of its letters" in refused.err
    texts = [t for name, t in ODD_TEXTS.items() if not name.startswith("1 MB")]
    src = _write(tmp_path / "odd.jsonl", "".join(json.dumps({"id": i, "text": t}) + "\n"
                                                 for i, t in enumerate(texts)))
    assert run_cli(["index", "build", src, "-o", tmp_path / "odd.tlx"]).code == 0
    ix = ReferenceIndex.load(tmp_path / "odd.tlx")
    pre = Preprocessor(**ix.tokenization)
    tokens = [pre.tokenize(t) for t in texts]
    assert [int(n) for n in ix.doc_lengths] == [len(t) for t in tokens]
    counts = Counter(w for t in tokens for w in t)
    assert {w: int(ix.document_frequency(ix.word_id(w))) for w in counts} == {
        w: sum(w in t for t in tokens) for w in counts}
    assert ix.n_tokens == sum(counts.values())


# -- ReferenceIndex.load of damaged files ------------------------------------------------------------------
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


# -- the frequent-pair path of the coherence core, against brute force ------------------------------------
def _brute_counts(docs, words, pairs, window):
    units = []
    for d in docs:
        if window is None:
            units.append(set(d))
        else:
            units.extend(set(d[s:s + window]) for s in range(max(1, len(d) - window + 1)))
    return (len(units), [sum(w in u for u in units) for w in words],
            [sum(words[a] in u and words[b] in u for u in units) for a, b in pairs])


def _corpora():
    import random

    r = random.Random(1)
    vocab = [f"w{i}" for i in range(30)]
    return {"random": [[r.choice(vocab[:r.randint(2, 30)]) for _ in range(r.randint(1, 40))]
                       for _ in range(60)],
            "one document": [[r.choice(vocab) for _ in range(25)]],
            "short documents": [[r.choice(vocab[:5]) for _ in range(r.randint(1, 3))] for _ in range(20)]}


@pytest.mark.parametrize("corpus", ["random", "one document", "short documents"])
@pytest.mark.parametrize("window", [None, 1, 2, 5, 110, 10**6])
def test_frequent_pair_counts_equal_brute_force(corpus, window):
    """Counts are the same whatever ``frequent`` (0 .. all words, and beyond them up to MAX_FREQUENT), for
    all pairs, repeated-word pairs, and windows longer than every document."""
    from tealeaves.coherence.core import MAX_FREQUENT, count_documents, count_windows
    from tealeaves.corpus.corpus import Corpus
    from tealeaves.index import build_index

    docs = _corpora()[corpus]
    ix = build_index(Corpus.from_token_lists(docs))
    words = list(ix.vocabulary)[:12]
    ids = [ix.word_id(w) for w in words]
    for pairs in ([(a, b) for a in range(len(words)) for b in range(a + 1, len(words))],
                  [(0, 0), (1, 1), (0, 1), (1, 0)], [(2, 3)]):
        expected = _brute_counts(docs, words, pairs, window)
        for frequent in (None, 0, 1, 3, 12, 13, MAX_FREQUENT):
            c = (count_documents(ix, ids, pairs, frequent=frequent) if window is None
                 else count_windows(ix, ids, pairs, window, frequent=frequent))
            got = (c.n_units, [int(x) for x in c.single], [int(x) for x in c.joint])
            assert got == expected, (pairs[:3], frequent)


@pytest.mark.parametrize("window", [None, 3])
@pytest.mark.parametrize("frequent, fragment", [(-1, "frequent must be a whole number >= 0"),
                                                (2.5, "frequent must be a whole number"),
                                                (True, "frequent must be a whole number"),
                                                (10**9, "frequent must be a whole number")])
def test_frequent_out_of_range_refused(window, frequent, fragment):
    # before: -1 was read as order[:-1], 2.5 and True were coerced by int(), and 10**9 was not capped (an
    # F x F table per thread of gigabytes for a large call); the counts stayed right, the setting did not
    from tealeaves.coherence.core import count_documents, count_windows
    from tealeaves.corpus.corpus import Corpus
    from tealeaves.errors import ParameterError
    from tealeaves.index import build_index

    ix = build_index(Corpus.from_token_lists(_corpora()["random"]))
    ids = [ix.word_id(w) for w in list(ix.vocabulary)[:4]]
    with pytest.raises(ParameterError, match=fragment):
        if window is None:
            count_documents(ix, ids, [(0, 1)], frequent=frequent)
        else:
            count_windows(ix, ids, [(0, 1)], window, frequent=frequent)


@pytest.mark.parametrize("call", ["documents", "windows", "context"])
@pytest.mark.parametrize("ids, pairs, fragment", [([-1, 0], [(0, 1)], "word id -1 is not a word"),
                                                  ([0, 10**6], [(0, 1)], "word id 1000000 is not a word"),
                                                  ([0, 1], [(-1, 0)], "pair entry -1 does not index"),
                                                  ([0, 1], [(0, 2)], "pair entry 2 does not index")])
def test_core_word_ids_and_pairs_checked(call, ids, pairs, fragment):
    # before: count_documents(ix, [-1, 0], ...) returned single = [-7, 2]; count_windows raised a bare
    # ValueError ("negative dimensions"); an id past the vocabulary an IndexError; a pair (-1, 0) wrapped
    # silently to the last word
    from tealeaves.coherence.core import count_context, count_documents, count_windows
    from tealeaves.coherence.errors import SettingsError
    from tealeaves.corpus.corpus import Corpus
    from tealeaves.index import build_index

    ix = build_index(Corpus.from_token_lists(_corpora()["random"]))
    fn = {"documents": lambda: count_documents(ix, ids, pairs),
          "windows": lambda: count_windows(ix, ids, pairs, 3),
          "context": lambda: count_context(ix, ids, pairs, 3)}[call]
    with pytest.raises(SettingsError, match=fragment):
        fn()


# -- --name: recorded in one-line, |-separated signatures --------------------------------------------------
@pytest.mark.parametrize("command", ["index build", "index build-aligned"])
@pytest.mark.parametrize("name", ["", " ", "a\nb", "a\rb", "a\u2028b", "a\x00b"])
def test_bad_reference_name(tmp_path, cli_error, command, name):
    # before: '' silently became the default name; 'a\nb' split the signature over two lines ('a|b', once
    # refused here, is accepted now that signatures escape '|': tests/bad_inputs/test_trust.py)
    src = (_tuples(tmp_path) if "aligned" in command
           else _write(tmp_path / "d.jsonl", '{"id": 1, "text": "cat"}\n'))
    cli_error([*command.split(), src, "-o", tmp_path / "out", "--name", name],
              "--name must be a non-empty name", code=2)
    assert not (tmp_path / "out").exists()


def test_good_reference_name_round_trips_through_the_signature(tmp_path, run_cli):
    from tealeaves.signature import Signature

    src = _write(tmp_path / "d.jsonl", '{"id": 1, "text": "cat dog"}\n{"id": 2, "text": "cat mat"}\n')
    assert run_cli(["index", "build", src, "-o", tmp_path / "r.tlx", "--name", "naïve ref-2026"]).code == 0
    topics = _write(tmp_path / "t.txt", "cat dog\n")
    result = run_cli(["coherence", "--reference", tmp_path / "r.tlx", "--topics", topics, "--format", "json"])
    assert result.code == 0
    sig = json.loads(result.out)["signature"]
    assert Signature.parse(sig).fields["ref"].startswith("naïve ref-2026@")


# -- tuple JSON: a key twice in one object ----------------------------------------------------------------
@pytest.mark.parametrize("line, key", [
    ('{"id": "a", "en": "cat dog", "sv": "katt", "id": "b"}', "id"),
    ('{"id": "a", "en": "cat dog", "sv": "katt", "en": "mat"}', "en"),
])
def test_repeated_key_in_a_tuple(tmp_path, cli_error, line, key):
    # before: json kept the last value silently (tuple 'b', or en text 'mat')
    src = _write(tmp_path / "t.jsonl", line + "\n")
    cli_error(["index", "build-aligned", src, "-o", tmp_path / "out"],
              f"key '{key}' occurs twice in one object")


@pytest.mark.parametrize("line, fragment", [
    ('{"id": "a", "en": "cat dog", "sv": NaN}', "'sv' is NaN"),
    ('{"id": NaN, "en": "cat dog", "sv": "katt"}', '"id" is NaN'),
])
def test_nan_in_a_tuple_is_named(tmp_path, cli_error, line, fragment):
    src = _write(tmp_path / "t.jsonl", line + "\n")
    cli_error(["index", "build-aligned", src, "-o", tmp_path / "out"], fragment)


# -- deeply nested JSON ------------------------------------------------------------------------------------
DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("command", ["index build-aligned", "pltm fit"])
def test_deeply_nested_tuple(tmp_path, cli_error, command):
    # before: exit 70 (RecursionError)
    src = _write(tmp_path / "t.jsonl", '{"id": "a", "en": "cat", "sv": ' + DEEP + "}\n")
    cli_error([*command.split(), src, "-o", tmp_path / "out"], "JSON nested too deeply")


def test_deeply_nested_manifest(aligned, cli_error):
    out, topics = aligned
    (out / "aligned.json").write_text(DEEP)  # before: exit 70 (RecursionError)
    cli_error(["cnpmi", topics, "--reference", out, "--top", "3"], "aligned.json is nested too deeply")


@pytest.mark.parametrize("command, line", [
    ("index build", '{"id": 1, "text": "cat dog", "text": "mat"}'),  # before: indexed 'mat' only
    ("index build-aligned --links", '{"en": "Anarchism", "en": "Autism", "sv": "Anarkism"}'),
])
def test_repeated_key_in_a_corpus_or_links_record(tmp_path, cli_error, command, line):
    src = _write(tmp_path / "r.jsonl", line + "\n")
    dump = _write(tmp_path / "d.xml", "<mediawiki/>")
    extra = ["--dump", f"en={dump}", "--dump", f"sv={dump}"] if "links" in command else []
    cli_error([*command.split(), src, *extra, "-o", tmp_path / "out"], "occurs twice in one object")


@pytest.mark.parametrize("topic, fragment", [
    (["cat", None, "sun"], "has the word None (NoneType)"),
    (["cat", float("nan"), "sun"], "has the word nan (float)"),
    (5, "topic 0 is int 5"),
])
def test_a_topic_word_that_is_not_a_string_is_refused_not_mapped_to_another_word(topic, fragment):
    """A None word once passed the check (``next(..., None)`` could not tell it from no bad word) and the
    word table's hashing then mapped it to the last distinct word: a score of -0.333 for a topic of a
    missing word (session 4 review)."""
    from tealeaves.coherence import Coherence, TopicError, index_from_token_lists

    ix = index_from_token_lists([["cat", "dog"], ["sun", "moon"], ["cat", "moon"]])
    with pytest.raises(TopicError, match=re.escape(fragment)):
        Coherence("npmi", top_n=3).score([topic], ix)


def test_word_table_gives_every_distinct_word_its_own_id():
    """The word table (one hash pass over the topic words) maps each position to its own word's id:
    equal to a dictionary lookup per position on topics with repeats across topics, missing words and
    words without postings."""
    from tealeaves.coherence import index_from_token_lists
    from tealeaves.coherence.measure import _word_table

    ix = index_from_token_lists([["a", "b", "c"], ["b", "d"], ["e"]])
    topics = [["a", "zz", "b"], ["d", "a"], ["e", "c", "b", "yy"]]
    loc, uniq = _word_table(ix, topics)
    for t, words in enumerate(topics):
        for i, w in enumerate(words):
            wid = ix.vocabulary.index.get(w)
            assert (uniq[loc[t, i]] if loc[t, i] >= 0 else None) == wid
        assert (loc[t, len(words):] == -1).all()
