"""Property tests: random topic files and random corpora through the command line.

Every random input ends in exactly one of: exit 0 with a result that equals an independent
recomputation, or exit 1/2 with ``tealeaves: error: ...``; never a traceback, an internal
error, or NaN/infinity in JSON output.

* random topic files (unicode words, blank lines, tabs, CRLF) scored by ``tealeaves
  coherence`` against a small real reference (the UDHR's 31 English articles) and checked
  against a brute-force NPMI over the reference's document sets;
* random corpora (token lists with empty documents, BOM, CRLF) through ``tealeaves index
  build`` (document frequencies recounted), ``tealeaves coherence`` (brute-force NPMI) and
  document completion with a one-topic model (held-out log-likelihood recomputed from the
  split sizes);
* random JSON documents read as multilingual topics files: either the documented schema's
  reading (recomputed here) or :class:`~tealeaves.errors.InputFormatError` /
  :class:`~tealeaves.errors.EmptyInputError`, never another exception.

The checks are plain functions so that ``benchmarks/bad_inputs_fuzz.py`` runs the same ones
on thousands of inputs; here they run on a bounded number (about 200 in all, under a minute).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import tempfile
import warnings
from collections import Counter
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tealeaves.cli import main
from test_multilingual_measures import _npmi  # the brute-force NPMI of one pair (-1 never, 1 always)

UDHR = "parallel/udhr/eng.articles.jsonl"
BOM = "\ufeff"


# -- running the CLI in-process ------------------------------------------------------------
def run(argv) -> tuple[int, str, str]:
    """``tealeaves argv`` in this process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
    return int(code), out.getvalue(), err.getvalue()


def _reject_constant(name: str):
    raise AssertionError(f"JSON output holds {name}")


def check_outcome(code: int, out: str, err: str) -> dict | None:
    """The boundary's contract; returns the parsed JSON of a success (NaN/Infinity refused)."""
    assert "Traceback" not in err and "internal error" not in err, err
    assert code in (0, 1, 2), (code, err)
    if code != 0:
        assert "tealeaves: error: " in err, err
        return None
    return json.loads(out, parse_constant=_reject_constant)


# -- brute-force recomputations --------------------------------------------------------------
def brute_npmi(words: list[str], doc_sets: list[set[str]]) -> float | None:
    """Mean NPMI over the pairs of known words (document co-occurrence; never co-occurring -> -1,
    both in every document -> 1); ``None`` with fewer than two known words."""
    n = len(doc_sets)
    df = {w: sum(w in d for d in doc_sets) for w in words}
    known = [w for w in words if df[w] > 0]
    if len(known) < 2:
        return None
    vals = [_npmi(sum(a in d and b in d for d in doc_sets) / n, df[a] / n, df[b] / n)
            for a, b in combinations(known, 2)]
    return sum(vals) / len(vals)


def expected_topics(text: str, top: int) -> list[list[str]] | None:
    """Topics as documented: one per non-blank line, whitespace-separated, first ``top`` words;
    ``None`` when the file must be refused (no topic, a topic of fewer than 2 words, a line that
    repeats a word anywhere: a ranking listing a word twice is malformed whatever ``top`` is)."""
    if text.startswith(BOM):
        text = text[1:]
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    full = [line.split() for line in lines if line.split()]
    if not full or any(len(t) < 2 or len(set(t)) < len(t) for t in full):
        return None
    return [t[:top] for t in full]


def check_scores(result: dict, topics: list[list[str]], doc_sets: list[set[str]]) -> None:
    """Each topic's words and NPMI equal the brute force; the mean is the mean of the scored ones."""
    assert [t["words"] for t in result["topics"]] == topics
    expected = [brute_npmi(t, doc_sets) for t in topics]
    got = [t["score"] for t in result["topics"]]
    assert [g is None for g in got] == [e is None for e in expected], (got, expected)
    assert [g for g in got if g is not None] == pytest.approx([e for e in expected if e is not None],
                                                              abs=1e-9)
    scored = [e for e in expected if e is not None]
    assert (result["mean"] is None) == (not scored)
    if scored:
        assert result["mean"] == pytest.approx(sum(scored) / len(scored), abs=1e-9)


# -- strategies ----------------------------------------------------------------------------------
#: Word characters: letters, marks, numbers, punctuation and symbols of any script (no whitespace,
#: no line or paragraph separators, no surrogates).
WORD_CHARS = st.characters(categories=("L", "M", "N", "P", "S"), exclude_characters="\ufeff")
random_words = st.text(WORD_CHARS, min_size=1, max_size=8)
separators = st.sampled_from([" ", "  ", "\t", " \t "])
line_ends = st.sampled_from(["\n", "\r\n"])


@st.composite
def topic_files(draw, vocabulary: list[str]):
    """(file text, --top): lines of known and random words, blank lines, tabs, CRLF."""
    word = st.one_of(st.sampled_from(vocabulary), random_words) if vocabulary else random_words
    lines = draw(st.lists(st.one_of(st.lists(word, min_size=0, max_size=7), st.just([])),
                          min_size=0, max_size=6))
    end = draw(line_ends)
    text = end.join(draw(separators).join(w) for w in lines) + draw(st.sampled_from(["", end]))
    return text, draw(st.integers(2, 12))


@st.composite
def corpora(draw):
    """(documents as token lists incl. empty ones, BOM?, line end, topics drawn from the vocabulary)."""
    vocab = draw(st.lists(random_words, min_size=2, max_size=12, unique=True))
    docs = draw(st.lists(st.lists(st.sampled_from(vocab), max_size=10), min_size=1, max_size=12))
    bom, end = draw(st.booleans()), draw(line_ends)
    used = sorted({w for d in docs for w in d})
    topic = draw(st.lists(st.sampled_from(vocab + ["unknownword"]), min_size=2, max_size=5, unique=True))
    return docs, bom, end, topic, used


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=True) | random_words
    | st.sampled_from(["en", "eng", "sv", "swe", "xx", "rights", "Rights"]),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(["en", "eng", "sv", "ro", "xx", ""]) | random_words, children,
                      max_size=3),
    max_leaves=20)


@st.composite
def multilingual_topics(draw):
    """Random JSON: mostly near the schema ({lang: [[word, ...], ...]}), sometimes anything."""
    near = st.dictionaries(st.sampled_from(["en", "eng", "sv", "ro", "zh", "xx"]),
                           st.lists(st.lists(st.one_of(random_words, json_values), max_size=4), max_size=3),
                           max_size=3)
    return draw(st.one_of(near, json_values)), draw(st.integers(2, 6))


# -- the reference -------------------------------------------------------------------------------------
_REFERENCE: dict = {}


def udhr_reference(folder: Path) -> tuple[Path, list[str], list[set[str]]]:
    """The UDHR's English articles tokenised by the default Preprocessor, written one per line and
    indexed once: (index path, vocabulary, document word sets)."""
    if not _REFERENCE:
        from tealeaves.corpus import Preprocessor
        from tealeaves.corpus.readers import read_jsonl
        from tealeaves.data import locate

        raw = read_jsonl(locate(UDHR), id_field="doc_id")
        corpus = Preprocessor().fit_transform(raw.texts, raw.ids)
        docs = [corpus.words(d) for d in range(len(corpus))]
        tokens = folder / "udhr.txt"
        tokens.write_text("".join(" ".join(d) + "\n" for d in docs), encoding="utf-8")
        index = folder / "udhr.tlx"
        code, _, err = run(["index", "build", tokens, "-o", index])
        assert code == 0, err
        _REFERENCE.update(index=index, vocabulary=sorted(corpus.vocabulary), sets=[set(d) for d in docs])
    return _REFERENCE["index"], _REFERENCE["vocabulary"], _REFERENCE["sets"]


# -- the properties -----------------------------------------------------------------------------------
def check_topic_file(text: str, top: int, index: Path, doc_sets: list[set[str]]) -> None:
    """Score a random topics file; exit 0 only with the brute-force NPMI, else a clean refusal."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "topics.txt"
        path.write_bytes(text.encode("utf-8"))
        sniffed = run(["coherence", "--reference", index, "--topics", path, "--top", top, "--format", "json"])
        code, out, err = run(["coherence", "--reference", index, "--topics", path, "--top", top,
                              "--topics-format", "words", "--format", "json"])
    # sniffing the format gives the words format's outcome, or refuses an ambiguous file naming the option
    if not (sniffed[0] == 1 and "--topics-format" in sniffed[2]):
        assert sniffed[:2] == (code, out), sniffed[2]
    result = check_outcome(code, out, err)
    topics = expected_topics(text, top)
    if topics is None:
        assert code == 1, f"expected a refusal, got exit {code}: {out[:200]}"
        return
    assert result is not None, err
    check_scores(result, topics, doc_sets)


def check_corpus(docs: list[list[str]], bom: bool, end: str, topic: list[str], used: list[str]) -> None:
    """index build (df recount), coherence (brute NPMI) and completion (exact log-likelihood)."""
    from tealeaves.models.base import FixedTopicModel

    text = (BOM if bom else "") + "".join(" ".join(d) + end for d in docs)
    with tempfile.TemporaryDirectory() as tmp:
        corpus, index, topics = Path(tmp) / "c.txt", Path(tmp) / "c.tlx", Path(tmp) / "t.txt"
        corpus.write_bytes(text.encode("utf-8"))
        code, out, err = run(["index", "build", corpus, "-o", index, "--format", "json"])
        info = check_outcome(code, out, err)
        if not used:  # no token at all: refused
            assert code == 1 and "no token" in err, err  # "holds no token(s)"
            return
        assert info is not None and info["n_documents"] == len(docs)
        assert info["n_tokens"] == sum(map(len, docs)) and info["n_words"] == len(used)
        _check_document_frequencies(index, docs)

        topics.write_text(" ".join(topic) + "\n", encoding="utf-8")
        code, out, err = run(["coherence", "--reference", index, "--topics", topics,
                              "--topics-format", "words", "--format", "json"])
        result = check_outcome(code, out, err)
        assert result is not None, err
        check_scores(result, [topic], [set(d) for d in docs])

        model = Path(tmp) / "uniform.npz"
        FixedTopicModel(np.full((1, len(used)), 1.0 / len(used)), used, 1.0).save(model)
        code, out, err = run(["perplexity", model, corpus, "--method", "completion", "--tokenized",
                              "--format", "json"])
        scored = check_outcome(code, out, err)
        held = sum(len(d) - len(d) // 2 for d in docs if len(d) >= 2)
        if held == 0:  # no document long enough to split: refused
            assert code == 1, out
            return
        assert scored is not None, err
        assert scored["n_heldout_words"] == held and scored["n_dropped_oov"] == 0
        assert scored["log_likelihood"] == pytest.approx(-held * math.log(len(used)), rel=1e-12)
        assert scored["perplexity"] == pytest.approx(len(used), rel=1e-12)


def check_multilingual_topics(value: object, top: int) -> None:
    """read_topics: the schema's reading of ``value`` or a schema error, nothing else."""
    from tealeaves.errors import EmptyInputError, InputFormatError
    from tealeaves.multilingual.topics import read_topics

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "topics.json"
        path.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the documented clamp of C
                got = read_topics(path, top)
        except (InputFormatError, EmptyInputError):
            got = None
    want = None
    if isinstance(value, dict) and value and all(_language(k) for k in value):
        codes = [_language(k) for k in value]
        lists = list(value.values())
        ok = len(set(codes)) == len(codes) and all(isinstance(ts, list) for ts in lists)
        ok = ok and len({len(ts) for ts in lists}) == 1 and len(lists[0]) > 0
        ok = ok and all(isinstance(t, list) and all(map(_is_word, t)) for ts in lists for t in ts)
        if ok:
            lowered = [[[w.lower() for w in t] for t in ts] for ts in lists]
            c = min(len(t) for ts in lowered for t in ts)
            if c >= 2 and all(len(set(t)) == len(t) for ts in lowered for t in ts):
                want = {code: [t[:min(c, top)] for t in ts] for code, ts in zip(codes, lowered)}
    assert got == want, (value, got, want)


def _language(key: str) -> str | None:
    """The documented language-code rule (tealeaves.corpus.aligned.language_code), restated: a known
    spelling -> its code; 2-3 ASCII letters, optionally with -subtags of 2-8 letters -> lowercased."""
    from tealeaves.corpus.aligned import LANGUAGE_ALIASES

    key = key.strip()
    if key.lower() in LANGUAGE_ALIASES:
        return LANGUAGE_ALIASES[key.lower()]
    parts = key.split("-")
    ok = all(p.isascii() and p.isalpha() for p in parts) and 2 <= len(parts[0]) <= 3
    return key.lower() if ok and all(2 <= len(p) <= 8 for p in parts[1:]) else None


def _is_word(w: object) -> bool:
    return isinstance(w, str) and bool(w) and not any(c.isspace() for c in w)


def _check_document_frequencies(index: Path, docs: list[list[str]]) -> None:
    from tealeaves.index import ReferenceIndex

    ix = ReferenceIndex.load(index)
    df = Counter(w for d in docs for w in set(d))
    assert {w: int(ix.document_frequency(i)) for i, w in enumerate(ix.vocabulary)} == dict(df)


# -- pytest entry points (bounded) ---------------------------------------------------------------------
FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow],
                derandomize=True)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    from conftest import require_data

    require_data(UDHR)
    return udhr_reference(tmp_path_factory.mktemp("udhr"))


def test_random_topic_files_against_a_real_reference(reference):
    index, vocabulary, sets = reference

    @FAST
    @given(topic_files(vocabulary))
    def prop(case):
        check_topic_file(case[0], case[1], index, sets)

    prop()


@FAST
@given(corpora())
def test_random_corpora_through_index_coherence_and_completion(case):
    check_corpus(*case)


@FAST
@given(multilingual_topics())
def test_random_json_as_multilingual_topics(case):
    check_multilingual_topics(*case)


def test_corpus_property_refuses_a_corpus_without_tokens():
    check_corpus([[], []], True, "\r\n", ["a", "b"], [])


def test_topic_file_with_a_bom_scores_like_the_plain_file(reference):
    index, _, sets = reference
    check_topic_file(BOM + "rights freedom equal\r\nmarriage family protection\r\n", 10, index, sets)
