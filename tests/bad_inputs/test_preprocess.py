"""Odd texts (NUL, lone surrogates, line and paragraph separators, 1 MB words, case mappings, astral and
combining characters, joiners) through the batched tokeniser (``Preprocessor.scan``, which ``index build``
uses): the same tokens as ``Preprocessor.tokenize``, in the API and in the index ``index build`` writes."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from conftest import write_text as _write

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


# ------------------------------------------------------------------------------------------------
# the preprocessing options (sweep, index build): every bad setting a clear error, CLI and API
# ------------------------------------------------------------------------------------------------
#: Raw texts of the bad-setting cases: 8 documents (no word is in all of them).
RAW = ["The cat sat on the mat.", "A dog and a cat.", "Sun, moon and stars!", "The moon rose over the sky.",
       "Cats chase dogs.", "Stars shine; the sun sets.", "Dogs bark at the moon.", "A mat, a rug."]

#: (options, fragment of the one error line, exit code): {stop}, {empty}, {binary}, {nul}, {missing} are
#: files of the test; parse-time refusals exit 2 (argparse), the others 1.
BAD_OPTIONS = {
    "unknown stop list": (["--stop-words", "german"],
                          "--stop-words 'german' is neither a known stop-word list (english, none)", 1),
    "missing stop-word file": (["--stop-words", "{missing}"], "nor an existing file", 1),
    "empty stop-word file": (["--stop-words", "{empty}"], "holds no word", 1),
    "binary stop-word file": (["--stop-words", "{binary}"], "is not UTF-8 text", 1),
    "stop-word file with NUL": (["--stop-words", "{nul}"], "holds a NUL character", 1),
    "min_df above max_df once counted": (["--min-df", "5", "--max-df", "0.5"],
                                         "--min-df is 5 documents, above --max-df's 4", 1),
    "min_df above max_df (counts)": (["--min-df", "5", "--max-df", "3"], "--min-df=5 is above --max-df=3", 1),
    "min_df above max_df (shares)": (["--min-df", "0.6", "--max-df", "0.4"], "--min-df=0.6 is above", 1),
    "share above 1": (["--max-df", "1.5"], "--max-df must be a document count >= 0 or a share", 2),
    "share of 0": (["--min-df", "0.0"], "got the share 0", 2),
    "negative count": (["--min-df", "-1"], "got the count -1", 2),
    "not a number": (["--max-df", "half"], "--max-df must be a document count", 2),
    "cap of 0": (["--max-features", "0"], "--max-features must be a whole number >= 1", 2),
    "min_length of 0": (["--min-length", "0"], "--min-length must be a whole number >= 1", 2),
    "invalid regular expression": (["--token-pattern", "(["], "is not a valid regular expression", 1),
    "pattern matching the empty string": (["--token-pattern", r"\w*"], "matches the empty string", 1),
    "pattern with two groups": (["--token-pattern", "(a)(b)"], "has 2 groups", 1),
    "pattern matching nothing": (["--token-pattern", "zzzqqq"], "hold no token", 1),
    "every word pruned": (["--min-df", "1.0"], "no word survives --min-df=1.0", 1),
    "every word too short": (["--min-length", "50"], "hold no token", 1),
}


@pytest.fixture(scope="module")
def bad_setting_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("preprocessing")
    folder = root / "docs"
    folder.mkdir()
    for i, text in enumerate(RAW):
        _write(folder / f"{i}.txt", text)
    files = {"missing": root / "missing.txt", "empty": _write(root / "empty.txt", ""),
             "nul": _write(root / "nul.txt", "cat\x00dog\n"), "stop": _write(root / "stop.txt", "cat\n")}
    files["binary"] = root / "binary.txt"
    files["binary"].write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe")
    tokens = _write(root / "tokens.txt", "cat dog\nsun moon\n")
    return folder, tokens, {k: str(v) for k, v in files.items()}


def _tealeaves(argv) -> subprocess.CompletedProcess:
    """``tealeaves argv`` in a subprocess (the installed entry point's behaviour: exit code, stderr)."""
    return subprocess.run([sys.executable, "-m", "tealeaves", *map(str, argv)], capture_output=True,
                          text=True, timeout=300)


def _one_error_line(proc: subprocess.CompletedProcess, fragment: str, code: int) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) >= 1 and lines[-1].startswith("tealeaves: error: "), proc.stderr
    assert not [ln for ln in lines[:-1] if not ln.startswith("tealeaves: warning: ")
                and "tokens" not in ln and "merging" not in ln], proc.stderr  # progress lines of a build only
    assert "Traceback" not in proc.stderr and fragment in lines[-1], proc.stderr


@pytest.mark.parametrize("case", list(BAD_OPTIONS))
def test_bad_preprocessing_option_is_one_clear_error(bad_setting_files, tmp_path, cli_error, case):
    """``index build`` in a subprocess; ``sweep`` (the same options, the same error boundary) in process."""
    folder, _, files = bad_setting_files
    options, fragment, code = BAD_OPTIONS[case]
    options = [o.format(**files) for o in options]
    built = _tealeaves(["index", "build", folder, "-o", tmp_path / "x.tlx", *options])
    _one_error_line(built, fragment, code)
    cli_error(["sweep", folder, "-o", tmp_path / "x.sqlite", "-k", "2", "--seeds", "1", *options],
              fragment, code)
    assert not list(tmp_path.iterdir())  # nothing written


@pytest.mark.parametrize("command", ["index build", "sweep"])
def test_preprocessing_options_on_pretokenised_input_are_refused(bad_setting_files, tmp_path, command):
    """Not silently ignored: a token file is taken as it is, so an option that would change it is refused."""
    _, tokens, _ = bad_setting_files
    out = ["-o", tmp_path / ("x.tlx" if command == "index build" else "x.sqlite")]
    extra = ["-k", "2", "--seeds", "1"] if command == "sweep" else []
    _one_error_line(_tealeaves([*command.split(), tokens, *out, *extra, "--min-df", "2"]),
                    "is pre-tokenised (one document of whitespace-separated tokens per line): the "
                    "preprocessing options", 1)


@pytest.mark.parametrize(("settings", "error", "fragment"), [
    ({"stop_words": "german"}, "ParameterError", "stop_words 'german' is not a known stop-word list"),
    ({"stop_words": 5}, "ParameterError", "stop_words must be a list name, None or a collection"),
    ({"stop_words": [b"the"]}, "ParameterError", "stop_words must be"),
    ({"min_df": 5, "max_df": 3}, "ParameterError", "`min_df`=5 is above `max_df`=3"),
    ({"min_df": 0.6, "max_df": 0.4}, "ParameterError", "`min_df`=0.6 is above `max_df`=0.4"),
    ({"max_df": 1.5}, "ParameterError", "got the share 1.5"),
    ({"min_df": 0.0}, "ParameterError", "got the share 0"),
    ({"min_df": -1}, "ParameterError", "got the count -1"),
    ({"max_df": float("nan")}, "ParameterError", "got the share nan"),
    ({"min_df": True}, "ParameterError", "min_df must be a document count"),
    ({"max_features": 0}, "ParameterError", "max_features must be a whole number >= 1"),
    ({"max_features": 2.5}, "ParameterError", "max_features must be a whole number"),
    ({"min_length": 0}, "ParameterError", "min_length must be a whole number >= 1"),
    ({"token_pattern": "(["}, "ParameterError", "is not a valid regular expression"),
    ({"token_pattern": ""}, "ParameterError", "token_pattern must be a non-empty string"),
    ({"token_pattern": r"\w*"}, "ParameterError", "matches the empty string"),
    ({"token_pattern": "(a)(b)"}, "ParameterError", "has 2 groups"),
    ({"lowercase": "yes"}, "ParameterError", "lowercase must be True or False"),
])
def test_bad_preprocessor_setting_is_refused_when_constructed(settings, error, fragment):
    from tealeaves import errors
    from tealeaves.corpus.preprocess import Preprocessor

    with pytest.raises(getattr(errors, error), match=re.escape(fragment)):
        Preprocessor(**settings)


@pytest.mark.parametrize(("settings", "error", "fragment"), [
    ({"min_df": 5, "max_df": 0.5}, "EmptyInputError", "`min_df` is 5 documents, above `max_df`'s 4"),
    ({"token_pattern": "zzzqqq"}, "EmptyInputError",
     "the 8 documents hold no token: `token_pattern` matches"),
    ({"min_length": 50}, "EmptyInputError", "or shorter than `min_length`=50"),
    ({"min_df": 1.0}, "EmptyInputError", "no word survives `min_df`=1.0 and `max_df`=1.0 on 8 documents"),
    ({"max_df": 0}, "ParameterError", "`min_df`=1 is above `max_df`=0"),
])
def test_bad_preprocessor_setting_is_refused_when_fitted(settings, error, fragment):
    """Settings that are only wrong for the documents given: refused by fit, naming the parameters."""
    from tealeaves import errors
    from tealeaves.corpus.preprocess import Preprocessor

    with pytest.raises(getattr(errors, error), match=re.escape(fragment)) as caught:
        Preprocessor(**settings).fit(RAW)
    assert caught.value.param  # the command line names the options instead


def test_bad_stop_word_files_are_refused_by_the_reader(bad_setting_files):
    from tealeaves.corpus.readers import read_stop_words
    from tealeaves.errors import CorpusFormatError, EmptyInputError, InputEncodingError, InputNotFoundError

    files = bad_setting_files[2]
    for name, error in (("missing", InputNotFoundError), ("empty", EmptyInputError),
                        ("binary", InputEncodingError), ("nul", CorpusFormatError)):
        with pytest.raises(error):
            read_stop_words(files[name])
    assert read_stop_words(files["stop"]) == ["cat"]
