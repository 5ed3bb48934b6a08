"""Bad and edge inputs of ``tealeaves reproduce ...`` and of the JSON output layer.

Options are refused at the boundary before any data is loaded or model fitted; each case
asserts the exit code and the message.  The API checks (``check_ks``, the model cache,
``dump_json``) assert the error class and fragment, or a documented behaviour.
"""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

from tealeaves._output import check_output_path, dump_json
from tealeaves.corpus import Corpus
from tealeaves.errors import OutputError, ParameterError
from tealeaves.reproduce.reuters import check_ks, fit_reuters_models, model_key

USAGE = [
    (["five-term", "--restarts", "0"], "--n-restarts must be a whole number >= 1"),
    (["five-term", "--restarts", "-1"], "--n-restarts must be a whole number >= 1"),
    (["five-term", "--restarts", "many"], "--n-restarts must be a whole number"),
    (["five-term", "--restarts", "100000"], "<= 10000"),
    (["reuters", "--k", "1"], "--n-components must be a whole number >= 2, got 1"),
    (["reuters", "--k", "0", "5"], "--n-components must be a whole number >= 2, got 0"),
    (["reuters", "--k", "5.5"], "--n-components must be a whole number >= 2, got '5.5'"),
    (["reuters", "--k"], "expected at least one argument"),
    (["reuters", "--seed", "-1"], "seed must be a whole number >= 0"),
    (["reuters", "--seed", str(2**32)], "seed must be a whole number >= 0"),
    (["reuters", "--split-seed", "x"], "seed must be a whole number"),
    (["reuters", "--format", "xml"], "invalid choice"),
    (["reuters-coherence", "--top", "1"], "--n-top must be a whole number >= 2"),
    (["reuters-coherence", "--lsi", "0"], "--lsi-dimensions must be a whole number >= 1"),
    (["reuters-coherence", "--lsi", "5000"], "<= 1000"),
    (["reuters-coherence", "--k", "-4"], "--n-components must be a whole number >= 2"),
    (["bible-vs-modern", "--n-iter", "0"], "--n-iter must be a whole number >= 1"),
    (["bible-vs-modern", "--n-iter", "1e3"], "--n-iter must be a whole number >= 1"),
    (["bible-vs-modern", "--rich", "everything"], "invalid choice"),
    (["no-such-example"], "invalid choice"),
    (["hao2018", "--figure", "8", "--rich-unit", "0"], "is not 'document', 'sentence' or a whole number >="),
    (["hao2018", "--figure", "8", "--rich-unit", "sentences"], "is not 'document', 'sentence' or a whole"),
    (["hao2018", "--figure", "10", "--rich-unit", "-3"], "is not 'document', 'sentence' or a whole"),
    (["hao2018", "--figure", "10", "--rich-unit", "\u0663"], "is not 'document', 'sentence' or a whole"),
    (["hao2018", "--figure", "8", "--design", "pooled"], "invalid choice"),
    (["five-term", "--format", "markdown"], "invalid choice"),  # only the tables' reproductions print it
]


@pytest.mark.parametrize("argv, fragment", USAGE)
def test_reproduce_usage_errors(cli_error, argv, fragment):
    cli_error(["reproduce", *argv], fragment, code=2)


@pytest.mark.parametrize("argv, fragment", [
    (["reuters", "--k", "5", "10", "5"], "--n-components lists 5 more than once"),
    (["reuters-coherence", "--k", "20", "20"], "--n-components lists 20 more than once"),
    (["bible-vs-modern", "--languages", "ro", "sv"], "at least three distinct languages"),
    (["bible-vs-modern", "--languages", "ro", "ron", "sv", "am"], "--languages lists 'ro' more than once"),
    (["bible-vs-modern", "--languages", "ro", "sv", "xx"], "unknown language code 'xx'"),
    (["bible-vs-modern", "--languages", "en", "ro", "sv"], "at least three distinct languages"),
    (["hao2018", "--figure", "6", "--design", "links"], "--design applies to --figure 8 only"),
    (["hao2018", "--figure", "7", "--rich-unit", "4"], "--rich-unit applies to --figure 8 and 10 only"),
])
def test_reproduce_value_errors(cli_error, argv, fragment):
    cli_error(["reproduce", *argv], fragment)


def test_topics_csv_is_checked_before_the_run(cli_error, tmp_path, monkeypatch):
    import tealeaves.reproduce.bible_vs_modern as bvm

    monkeypatch.setattr(bvm, "run", lambda *a, **k: pytest.fail("the run started"))
    cli_error(["reproduce", "bible-vs-modern", "--quick", "--topics-csv", tmp_path], "is a folder")
    cli_error(["reproduce", "bible-vs-modern", "--quick", "--topics-csv", tmp_path / "no" / "t.csv"],
              "folder '" + str(tmp_path / "no") + "' does not exist")
    assert list(tmp_path.iterdir()) == []  # the probe left no temporary file


def test_reproduce_without_example_prints_help(run_cli):
    result = run_cli(["reproduce"])
    assert result.code == 2 and "five-term" in result.out


# -- API ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("ks, fragment", [
    ([1], "n_components must be a whole number >= 2, got 1"),
    ([5, 5], "n_components lists 5 more than once"),
    ([5.0], "n_components must be a whole number >= 2, got 5.0"),
    ([True], "got True"),
])
def test_check_ks(ks, fragment):
    with pytest.raises(ParameterError, match=fragment):
        check_ks(ks)


@pytest.mark.parametrize("change, fragment", [
    ({"design": "pooled"}, "Figure 8 design 'pooled' is not one of"),
    ({"rich_unit": "0"}, "rich-reference unit '0' is not"),
    ({"rich_unit": "paragraph"}, "rich-reference unit 'paragraph' is not"),
    ({"rich_unit": 4}, "rich-reference unit must be a string, got int 4"),
])
def test_hao2018_config_is_checked_before_any_data(change, fragment, monkeypatch):
    from dataclasses import replace

    import tealeaves.reproduce.hao2018 as hao

    monkeypatch.setattr(hao, "_Pair", lambda *a: pytest.fail("data were loaded"))
    with pytest.raises(ParameterError, match=fragment):
        hao.run(8, replace(hao.Config.quick(), **change))


def test_check_ks_keeps_the_given_order():
    assert check_ks([40, 5, 10]) == [40, 5, 10]


def _tiny_train() -> Corpus:
    docs = [["apple", "pear", "apple"], ["pear", "plum"], ["plum", "fig", "fig"], ["apple", "fig"]] * 3
    return Corpus.from_token_lists(docs)


def test_model_cache_folder_that_is_a_file(tmp_path):
    blocker = tmp_path / "cache"
    blocker.write_text("not a folder")
    with pytest.raises(OutputError, match="model cache folder .* is a file"):
        fit_reuters_models([2], cache_dir=blocker, train=_tiny_train(), progress=None)


def test_unreadable_cache_file_is_refitted(tmp_path):
    """Documented: a cache file that cannot be unpickled is ignored, refitted and overwritten."""
    from tealeaves.reproduce.reuters import lda_params

    train = _tiny_train()
    path = tmp_path / f"{model_key(2, lda_params(0, True), train)}.pkl"
    path.write_bytes(b"\x80\x05truncated")
    messages = []
    model = fit_reuters_models([2], quick=True, cache_dir=tmp_path, train=train, progress=messages.append)[2]
    assert any("ignoring unreadable model cache file" in m for m in messages)
    with open(path, "rb") as fh:
        reloaded = pickle.load(fh)
    assert np.array_equal(reloaded.topic_word_, model.topic_word_)
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no stray temporary file


def test_fit_reuters_models_validates_before_loading(tmp_path):
    with pytest.raises(ParameterError, match="seed must be a whole number >= 0"):
        fit_reuters_models([2], seed=-1, cache_dir=tmp_path, train=None, progress=None)


def test_reuters_coherence_lsi_dimensions_bounded_by_the_corpus():
    from tealeaves.reproduce.reuters_coherence import reuters_coherence_table

    with pytest.raises(ParameterError, match="lsi_dimensions must be a whole number >= 1 and <= 3"):
        reuters_coherence_table([2], lsi_dimensions=4, train=_tiny_train(), models={}, progress=None)
    with pytest.raises(ParameterError, match="n_top must be a whole number >= 2"):
        reuters_coherence_table([2], n_top=1, train=_tiny_train(), models={}, progress=None)


# -- JSON output -------------------------------------------------------------------------------------
@pytest.mark.parametrize("value, where", [
    ({"rows": [{"p": 1.0}, {"p": float("nan")}]}, "result.rows[1].p"),
    ({"score": np.float64("inf")}, "result.score"),
    ({"per_topic": np.array([0.1, -np.inf])}, "result.per_topic[1]"),
    ([np.float32("nan")], "result[0]"),
])
def test_json_output_refuses_non_finite_numbers(value, where):
    with pytest.raises(OutputError, match=r"non-finite number .* at " + where.replace("[", r"\[")):
        dump_json(value)


def test_text_tables_refuse_non_finite_numbers():
    from tealeaves._output import format_table

    assert format_table([{"k": 5, "p": 1.25}]).splitlines()[-1].split() == ["5", "1.250"]
    with pytest.raises(OutputError, match=r"\(nan\) at row 1, column 'p'"):
        format_table([{"k": 5, "p": 1.0}, {"k": 10, "p": float("nan")}])


def test_json_output_converts_numpy_exactly():
    out = json.loads(dump_json({"a": np.int64(3), "b": np.float32(0.5), "c": np.bool_(True),
                                "d": np.arange(3), "e": None}))
    assert out == {"a": 3, "b": 0.5, "c": True, "d": [0, 1, 2], "e": None}


def test_check_output_path(tmp_path):
    with pytest.raises(OutputError, match="is a folder"):
        check_output_path(tmp_path)
    with pytest.raises(OutputError, match="does not exist"):
        check_output_path(tmp_path / "missing" / "out.json")
    check_output_path(tmp_path / "ok.json")
    assert list(tmp_path.iterdir()) == []


def test_ctrl_c_during_a_reproduction_leaves_no_output(run_cli, tmp_path, monkeypatch):
    import tealeaves.reproduce.bible_vs_modern as bvm

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(bvm, "run", interrupted)
    result = run_cli(["reproduce", "bible-vs-modern", "--quick", "--topics-csv", tmp_path / "t.csv"])
    assert result.code == 130 and "interrupted (Ctrl-C)" in result.err
    assert list(tmp_path.iterdir()) == []
