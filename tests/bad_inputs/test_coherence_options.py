"""Bad coherence options: each refused at the boundary with the exact outcome.

Command line: argparse-type errors exit 2, tealeaves errors exit 1, both with ``tealeaves: error:`` and
a message fragment (see ``conftest.cli_error``).  Python API: the error class and a fragment.
"""

from __future__ import annotations

import math

import pytest

from tealeaves.coherence import Coherence, SettingsError, TopicError, coherence, score_counts
from tealeaves.errors import ParameterError


@pytest.fixture
def files(tmp_path):
    ref = tmp_path / "ref.txt"
    ref.write_text("a b c d e f\nb c d e f a\nc d a b\n")
    topics = tmp_path / "topics.txt"
    topics.write_text("a b c\nd e f\n")
    long_topic = tmp_path / "long.txt"
    long_topic.write_text(" ".join(f"w{i}" for i in range(13)) + "\n")
    return {"ref": str(ref), "topics": str(topics), "long": str(long_topic)}


USAGE = [  # (extra options, message fragment): argparse refuses them, exit 2
    (["--top", "1"], "--n-top must be a whole number >= 2"),
    (["--top", "x"], "--n-top must be a whole number"),
    (["--top", "5,5"], "more than once"),
    (["--top", "5,,10"], "--n-top must be a whole number"),
    (["--smoothing", "-1"], "--smoothing must be a number >= 0"),
    (["--smoothing", "nan"], "finite"),
    (["--smoothing", "inf"], "finite"),
    (["--gamma", "0"], "--gamma must be a number > 0"),
    (["--gamma", "nan"], "finite"),
    (["--pairs", "-1"], "--pairs must be a whole number >= 0"),
    (["--pairs", "first"], "--pairs must be a whole number"),
    (["--min-count", "-5"], "--min-count must be a whole number >= 0"),
    (["--segmentation", "one-two"], "invalid choice"),
    (["--compat", "palmetto"], "invalid choice"),
    (["--log-base", "3"], "invalid choice"),
    (["--window", "0"], "jhlau's window 0 (the whole document) is --window doc"),
    (["--window", "-3"], "--window must be 'doc' or a whole number of tokens from 1 to 1,073,741,824"),
    (["--window", "ten"], "--window must be 'doc'"),
]


@pytest.mark.parametrize("extra,fragment", USAGE)
def test_cli_usage_errors(cli_error, files, extra, fragment):
    cli_error(["coherence", "--reference", files["ref"], "--topics", files["topics"], *extra], fragment,
              code=2)


SETTINGS = [  # (extra options, message fragment): tealeaves refuses them, exit 1
    (["--measure", "nosuch"], "measure='nosuch' is not known"),
    (["--pairs", "7"], "there are 2 topics"),
    (["--pairs", "0", "0"], "lists 0 more than once"),
    (["--pairs", "0", "--format", "json"], "--pairs prints word-pair matrices"),
    (["--gamma", "2"], "gamma only shapes the context vectors"),
    (["--compat", "gensim"], "counts whole documents"),
    (["--measure", "jhlau_npmi", "--window", "doc", "--compat", "gensim"], "counts whole documents"),
    (["--log-base", "10"], "log_base changes only"),
    (["--measure", "c_a", "--window", "doc"], "context windows need a window size"),
    (["--measure", "c_a", "--compat", "gensim"], "context windows have one definition"),
    (["--window-kind", "context", "--window", "5", "--segmentation", "one-any", "--confirmation", "fitelson"],
     "context windows count word pairs only"),
    (["--top", "3,5"], "averages over cardinalities up to 5"),
]


@pytest.mark.parametrize("extra,fragment", SETTINGS)
def test_cli_settings_errors(cli_error, files, extra, fragment):
    cli_error(["coherence", "--reference", files["ref"], "--topics", files["topics"], *extra], fragment,
              code=1)


def test_cli_set_segmentation_on_too_many_words(cli_error, files):
    cli_error(["coherence", "--reference", files["ref"], "--topics", files["long"], "--top", "13",
               "--segmentation", "any-any"], "at most 12", code=1)


DOCS = [["a", "b", "c"], ["a", "c"], ["b", "d"], ["c", "d", "a"]]
TOPICS = [["a", "b", "c"]]

API = [  # (keyword arguments of coherence(), error class, message fragment)
    ({"top_n": 1}, ParameterError, "n_top must be a whole number >= 2"),
    ({"top_n": 2.5}, ParameterError, "n_top must be a whole number"),
    ({"top_n": True}, ParameterError, "n_top must be a whole number"),
    ({"top_n": []}, ParameterError, "n_top is an empty list"),
    ({"top_n": [2, 2]}, ParameterError, "n_top lists 2 more than once"),
    ({"top_n": [2, 1]}, ParameterError, "n_top must be a whole number >= 2"),
    ({"window": 0}, ParameterError, "window='doc'"),
    ({"window": 2.5}, ParameterError, "window must be 'doc'"),
    ({"window": True}, ParameterError, "window must be 'doc'"),
    ({"smoothing": math.nan}, ParameterError, "smoothing must be a finite number"),
    ({"smoothing": -1.0}, ParameterError, "smoothing must be a number >= 0"),
    ({"smoothing": "one"}, ParameterError, "smoothing must be a number"),
    ({"measure": "c_v", "gamma": math.inf}, ParameterError, "gamma must be a finite number"),
    ({"measure": "c_v", "gamma": -1.0}, ParameterError, "gamma must be a number > 0"),
    ({"min_count": -1}, ParameterError, "min_count must be a whole number >= 0"),
    ({"min_count": 1.5}, ParameterError, "min_count must be a whole number"),
    ({"measure": "nosuch"}, SettingsError, "measure='nosuch' is not known"),
    ({"log_base": "3"}, SettingsError, "log_base='3' is not known"),
    ({"absent": "maybe"}, SettingsError, "absent='maybe' is not known"),
    ({"window_kind": "tumbling"}, SettingsError, "window_kind='tumbling' is not known"),
    ({"measure": "umass", "gamma": 2.0}, SettingsError, "gamma only shapes"),
    ({"measure": "npmi", "compat": "jhlau"}, SettingsError, "counts whole documents"),
    ({"measure": "c_v", "log_base": "2"}, SettingsError, "log_base changes only"),
    ({"frobnicate": 1}, SettingsError, "unknown coherence settings ['frobnicate']"),
    ({"top_n": [2, 5]}, TopicError, "averages over cardinalities up to 5"),
]


@pytest.mark.parametrize("kwargs,error,fragment", API)
def test_api_errors(kwargs, error, fragment):
    with pytest.raises(error) as info:
        coherence(TOPICS, DOCS, **kwargs)
    assert fragment in str(info.value)


def test_api_class_checks_the_same():
    with pytest.raises(ParameterError, match="n_top"):
        Coherence("npmi", top_n=0).score(TOPICS, DOCS)
    with pytest.raises(ParameterError, match="smoothing must be a finite number"):
        Coherence("npmi", smoothing=math.inf).spec  # noqa: B018 (the property validates)
    with pytest.raises(SettingsError, match="at most 12"):
        Coherence("npmi", segmentation="one-any", top_n=13).score(TOPICS, DOCS)


def test_score_counts_needs_word_set_counts_for_set_segmentations():
    with pytest.raises(SettingsError, match="needs the counts of word sets"):
        score_counts(["a", "b"], [[3, 1], [1, 2]], 5, "npmi", segmentation="one-any", confirmation="fitelson")


def test_context_windows_need_long_enough_documents():
    from tealeaves.errors import EmptyInputError

    with pytest.raises(EmptyInputError, match="context windows of 5 tokens"):
        coherence([["a", "b"]], [["a", "b"], ["b"]], measure="c_a")


def test_a_logarithmic_measure_refuses_a_never_cooccurring_set():
    docs = [["a", "b"], ["c", "d"], ["a", "d"], ["b", "c"]]
    from tealeaves.coherence import ZeroCooccurrenceError

    with pytest.raises(ZeroCooccurrenceError, match="'a c' and 'b'|never co-occur"):
        coherence([["a", "b", "c"]], docs, measure="npmi", segmentation="any-any", confirmation="log-jaccard")
