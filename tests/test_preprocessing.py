"""Preprocessing under control and on record (issue 24, item 3).

* the command line's preprocessing options (``sweep``, ``index build``) give exactly the vocabulary and the
  tokens of the Python :class:`~tealeaves.corpus.Preprocessor` with the same settings, on 200 real raw
  Reuters stories written to a folder, for several option combinations;
* the recipe is recorded: ``load_results(...).preprocessing``, the index's ``tokenization``,
  ``Corpus.preprocessing`` (kept by ``subset``);
* ``min_length`` and the document-frequency bounds are checked against an independent recomputation and
  against scikit-learn's ``CountVectorizer``; ``read_corpus`` with default options is unchanged;
* a sweep scored against a reference tokenised otherwise says so (a warning, and the description).
"""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from conftest import require_data

pytestmark = pytest.mark.xdist_group("reuters")

#: Option combinations: (command-line options, the Preprocessor's keyword arguments).  ``STOPFILE`` is
#: replaced by a stop-word file of the test.
COMBINATIONS = {
    "defaults": ([], {}),
    "counts-cap-length": (["--stop-words", "none", "--min-df", "2", "--max-df", "0.5",
                           "--max-features", "500", "--min-length", "3"],
                          {"stop_words": None, "min_df": 2, "max_df": 0.5, "max_features": 500,
                           "min_length": 3}),
    "file-case-shares": (["--stop-words", "STOPFILE", "--no-lowercase", "--min-df", "0.02", "--max-df", "40"],
                         {"stop_words": "STOPFILE", "lowercase": False, "min_df": 0.02, "max_df": 40}),
    "pattern-length": (["--token-pattern", r"(?u)\b\w\w+\b", "--min-length", "4", "--max-features", "200"],
                       {"token_pattern": r"(?u)\b\w\w+\b", "min_length": 4, "max_features": 200}),
}
STOP_WORDS = ["the", "said", "The", "Reuter", "and", "of", "to", "in"]


@pytest.fixture(scope="module")
def stories(tmp_path_factory):
    """A folder of 200 raw Reuters stories (title and body, one file each), their texts by file name,
    and a stop-word file."""
    from tealeaves.corpus.reuters import read_reuters, story_text

    sgm = require_data("reuters21578/reut2-000.sgm")
    root = tmp_path_factory.mktemp("stories")
    folder = root / "docs"
    folder.mkdir()
    texts = {}
    for i, story in enumerate(read_reuters([sgm])[:200]):
        texts[f"{i:04d}.txt"] = story_text(story)
        (folder / f"{i:04d}.txt").write_text(texts[f"{i:04d}.txt"], encoding="utf-8")
    stopfile = root / "stop.txt"
    stopfile.write_text("\n".join(STOP_WORDS) + "\n", encoding="utf-8")
    return folder, texts, stopfile


def _options(name: str, stopfile) -> tuple[list[str], dict]:
    argv, kwargs = COMBINATIONS[name]
    argv = [str(stopfile) if a == "STOPFILE" else a for a in argv]
    kwargs = {k: (STOP_WORDS if v == "STOPFILE" else v) for k, v in kwargs.items()}
    return argv, kwargs


def _python(texts: dict, kwargs: dict):
    """The Python Preprocessor's vocabulary and tokens (within it) of every text, by file name."""
    from tealeaves.corpus.preprocess import Preprocessor

    pre = Preprocessor(**kwargs).fit(texts.values())
    vocab = set(pre.vocabulary_)
    return pre, {name: [t for t in pre.tokenize(text) if t in vocab] for name, text in texts.items()}


@pytest.mark.parametrize("name", list(COMBINATIONS))
def test_index_build_options_equal_the_python_preprocessor(stories, tmp_path, run_cli, name):
    from tealeaves.index import ReferenceIndex

    folder, texts, stopfile = stories
    argv, kwargs = _options(name, stopfile)
    pre, tokens = _python(texts, kwargs)
    assert run_cli(["index", "build", folder, "-o", tmp_path / "ix.tlx", *argv]).code == 0
    ix = ReferenceIndex.load(tmp_path / "ix.tlx")
    assert list(ix.vocabulary) == list(pre.vocabulary_)  # the same vocabulary
    assert ix.tokenization == pre.get_params()  # the recipe, on record
    lengths = dict(zip(ix.document_ids, (int(n) for n in ix.doc_lengths)))
    assert lengths == {n: len(t) for n, t in tokens.items()}  # the same tokens, document by document
    counts = Counter(w for t in tokens.values() for w in set(t))
    assert {w: int(ix.document_frequency(ix.word_id(w))) for w in counts} == dict(counts)
    assert ix.n_tokens == sum(map(len, tokens.values())) > 1000


@pytest.mark.parametrize("name", list(COMBINATIONS))
def test_sweep_options_equal_the_python_preprocessor(stories, tmp_path, run_cli, name):
    """The stored vocabulary and recipe are the Preprocessor's; the stored fingerprints of the training
    and test splits (vocabulary, every token, the ids) are those of its corpus, split as the sweep splits."""
    from tealeaves.corpus.readers import read_text_folder
    from tealeaves.sweep import load_results, split_corpus
    from tealeaves.sweep.measures import corpus_hash

    folder, texts, stopfile = stories
    argv, kwargs = _options(name, stopfile)
    pre, _ = _python(texts, kwargs)
    store = tmp_path / "r.sqlite"
    result = run_cli(["sweep", folder, "-k", "2", "--seeds", "1", "--settings", '{"max_iter": 2}',
                      "-o", store, *argv])
    assert result.code == 0, result.err
    results = load_results(store)
    assert results.vocabulary == list(pre.vocabulary_)
    assert results.preprocessing == pre.get_params()
    raw = read_text_folder(folder)
    assert dict(zip(raw.ids, raw.texts)) == texts  # the folder holds exactly the stories
    train, test = split_corpus(pre.transform(raw.texts, raw.ids), 0.2, 0)
    assert (results.sweep["train"], results.sweep["test"]) == (corpus_hash(train), corpus_hash(test))


def test_sweep_raw_test_text_is_encoded_with_the_training_recipe(stories, tmp_path, run_cli):
    """``--test`` raw text goes through the recipe fitted on CORPUS (its vocabulary, not its own)."""
    from tealeaves.corpus.readers import read_text_folder
    from tealeaves.sweep import load_results
    from tealeaves.sweep.measures import corpus_hash

    folder, texts, _ = stories
    test_folder = tmp_path / "test"
    test_folder.mkdir()
    for name in sorted(texts)[:20]:  # the test stories are moved out of the training folder
        (test_folder / name).write_text(texts[name], encoding="utf-8")
    train_folder = tmp_path / "train"
    train_folder.mkdir()
    for name in sorted(texts)[20:]:
        (train_folder / name).write_text(texts[name], encoding="utf-8")
    argv = ["--min-df", "3", "--max-df", "0.3", "--stop-words", "none"]
    store = tmp_path / "r.sqlite"
    assert run_cli(["sweep", train_folder, "--test", test_folder, "-k", "2", "--seeds", "1",
                    "--settings", '{"max_iter": 2}', "-o", store, *argv]).code == 0
    from tealeaves.corpus.preprocess import Preprocessor

    train_raw, test_raw = read_text_folder(train_folder), read_text_folder(test_folder)
    pre = Preprocessor(min_df=3, max_df=0.3, stop_words=None)
    train = pre.fit_transform(train_raw.texts, train_raw.ids)
    test = pre.transform(test_raw.texts, test_raw.ids)
    results = load_results(store)
    assert (results.sweep["train"], results.sweep["test"]) == (corpus_hash(train), corpus_hash(test))
    assert test.n_dropped > 0  # words of the test stories outside the training vocabulary were dropped


def test_sweep_warns_and_records_a_reference_tokenised_otherwise(stories, tmp_path, run_cli):
    from tealeaves.sweep import load_results

    folder, _, _ = stories
    assert run_cli(["index", "build", folder, "-o", tmp_path / "ref.tlx", "--stop-words", "none"]).code == 0
    common = ["-k", "2", "--seeds", "1", "--settings", '{"max_iter": 2}', "--reference", tmp_path / "ref.tlx"]
    other = run_cli(["sweep", folder, *common, "-o", tmp_path / "a.sqlite"])  # default: English stop words
    assert other.code == 0
    warning = [ln for ln in other.err.splitlines() if ln.startswith("tealeaves: warning: ")]
    assert len(warning) == 1 and "another tokenisation than reference 'docs'" in warning[0]
    assert "stop_words: model 'english', reference None" in warning[0]
    assert "stop_words" in load_results(tmp_path / "a.sqlite").sweep["reference_mismatch"]
    same = run_cli(["sweep", folder, *common, "--stop-words", "none", "--min-df", "2",
                    "-o", tmp_path / "b.sqlite"])  # pruning is the model's own business: no mismatch
    assert same.code == 0 and "tealeaves: warning" not in same.err
    assert "reference_mismatch" not in load_results(tmp_path / "b.sqlite").sweep


def test_sweep_of_pretokenised_lines_records_no_recipe(tmp_path, run_cli):
    from conftest import DOCS
    from tealeaves.sweep import load_results

    lines = tmp_path / "docs.txt"
    lines.write_text("\n".join(DOCS) + "\n", encoding="utf-8")
    assert run_cli(["sweep", lines, "-k", "2", "--seeds", "1", "--settings", '{"max_iter": 2}',
                    "--n-top", "3", "-o", tmp_path / "r.sqlite"]).code == 0
    assert load_results(tmp_path / "r.sqlite").preprocessing is None


def test_read_corpus_default_is_unchanged(stories):
    """A folder read with no options: the default recipe, recomputed here by hand (the letters pattern,
    lowercased, scikit-learn's English stop words, nothing pruned), recorded as it was before
    ``min_length`` existed (the same six settings)."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    from tealeaves.corpus.preprocess import LETTERS_PATTERN, RECIPE_KEYS, Preprocessor
    from tealeaves.corpus.readers import read_corpus

    folder, texts, _ = stories
    corpus = read_corpus(folder)
    by_hand = {name: [t for t in re.findall(LETTERS_PATTERN, text.lower()) if t not in ENGLISH_STOP_WORDS]
               for name, text in texts.items()}
    assert list(corpus.vocabulary) == sorted({w for t in by_hand.values() for w in t})
    assert {d: corpus.words(i) for i, d in enumerate(corpus.ids)} == by_hand
    assert corpus.preprocessing == Preprocessor().get_params()
    assert tuple(sorted(corpus.preprocessing)) == tuple(sorted(RECIPE_KEYS))
    assert corpus.subset([3, 1]).preprocessing == corpus.preprocessing


def test_document_frequency_bounds_equal_countvectorizer(stories):
    """Counts and shares, as scikit-learn's CountVectorizer reads them (its word pattern, its stop words)."""
    from sklearn.feature_extraction.text import CountVectorizer

    from tealeaves.corpus.preprocess import Preprocessor

    texts = list(stories[1].values())
    for min_df, max_df in ((2, 0.5), (0.01, 30), (3, 1.0), (1, 0.05)):
        settings = {"token_pattern": r"(?u)\b\w\w+\b", "stop_words": "english", "min_df": min_df,
                    "max_df": max_df}
        theirs = sorted(CountVectorizer(**settings).fit(texts).vocabulary_)
        assert list(Preprocessor(**settings).fit(texts).vocabulary_) == theirs, (min_df, max_df)


def test_min_length_drops_short_tokens_in_tokenize_and_scan(stories):
    from tealeaves.corpus.preprocess import Preprocessor

    texts = list(stories[1].values())[:50]
    plain = Preprocessor(stop_words=None, token_pattern=r"(?u)\b\w+\b")
    for n in (1, 2, 4):
        pre = Preprocessor(stop_words=None, token_pattern=r"(?u)\b\w+\b", min_length=n)
        expected = [[t for t in plain.tokenize(x) if len(t) >= n] for x in texts]
        assert [pre.tokenize(x) for x in texts] == expected
        assert pre.scan(texts).tokens() == expected
    assert any(len(t) == 1 for x in texts for t in plain.tokenize(x))  # there were short tokens to drop


def test_recipe_round_trips_with_min_length():
    from tealeaves.corpus.preprocess import Preprocessor

    pre = Preprocessor(min_length=3, min_df=0.1, max_df=5, max_features=7, stop_words=["b", "a"])
    params = pre.get_params()
    assert params["min_length"] == 3 and params["stop_words"] == ["a", "b"]
    assert Preprocessor.from_params(params).get_params() == params
    assert "min_length" not in Preprocessor().get_params()  # a recipe recorded at the default is as before
    assert Preprocessor.from_params(Preprocessor().get_params()).min_length == 1


def test_cli_preprocessor_from_args_equals_the_constructor(tmp_path):
    """``preprocessor_from_args`` on parsed options: the Preprocessor of the same settings (the helper
    ``tealeaves evaluate`` wires in one line)."""
    import argparse

    from tealeaves._cli_options import add_preprocessing, preprocessor_from_args
    from tealeaves.corpus.preprocess import Preprocessor

    parser = argparse.ArgumentParser()
    add_preprocessing(parser)
    assert preprocessor_from_args(parser.parse_args([])).get_params() == Preprocessor().get_params()
    stop = tmp_path / "stop.txt"
    stop.write_text("Foo\n\n  bar \nfoo\n", encoding="utf-8")
    args = parser.parse_args(["--stop-words", str(stop), "--min-df", "1", "--max-df", "1.0",
                              "--min-length", "2", "--no-lowercase", "--max-features", "9",
                              "--token-pattern", "[a-z]+"])
    pre = preprocessor_from_args(args)
    assert pre.get_params() == Preprocessor(stop_words=["Foo", "bar", "foo"], min_df=1, max_df=1.0,
                                            min_length=2, lowercase=False, max_features=9,
                                            token_pattern="[a-z]+").get_params()
    assert isinstance(pre.min_df, int) and isinstance(pre.max_df, float)  # 1 document, all documents
    assert preprocessor_from_args(parser.parse_args(["--stop-words", "none"])).stop_words is None


def test_report_shows_the_preprocessing_given_on_the_command_line(stories, tmp_path, run_cli):
    """The recipe of ``sweep --min-df 2 --max-df 0.5 --stop-words FILE`` is what ``report`` shows: the JSON
    carries the stored recipe, and the page names each setting given."""
    from tealeaves.corpus.preprocess import Preprocessor

    folder, texts, stopfile = stories
    store = tmp_path / "r.sqlite"
    argv = ["--min-df", "2", "--max-df", "0.5", "--stop-words", str(stopfile)]
    result = run_cli(["sweep", folder, "-k", "2", "--seeds", "1", "--settings", '{"max_iter": 2}',
                      "-o", store, *argv])
    assert result.code == 0, result.err
    out = run_cli(["report", store, "--format", "json"])
    assert out.code == 0, out.err
    recipe = json.loads(out.out)["preprocessing"]
    assert recipe["min_df"] == 2 and recipe["max_df"] == 0.5
    assert recipe == Preprocessor(min_df=2, max_df=0.5, stop_words=recipe["stop_words"]).get_params()
    page = run_cli(["report", store, "-o", tmp_path / "r.html"])
    assert page.code == 0, page.err
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    section = html.split("What was fitted", 1)[1].split("</dl>", 1)[0]
    assert "preprocessing" in section and "min_df" in section.replace("min-df", "min_df")
