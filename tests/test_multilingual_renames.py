"""Renamed options and parameters of ``cnpmi``, ``pltm fit|topics|infer``, ``estimator ...`` and the
multilingual Python API (``docs/naming.md``): every old spelling still works, gives the identical
result, and warns once (one ``tealeaves: warning:`` line, or one ``FutureWarning``)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from tealeaves import _cli_args
from test_estimator_cli import small  # noqa: F401 (fixture: references, dictionaries, topics files)

WORDS = {"en": ["king", "city", "sheep", "field", "river", "boat", "bread", "wine"],
         "sv": ["kungen", "staden", "fåren", "fältet", "floden", "båten", "brödet", "vinet"]}


def _tuples(path):
    rows = []
    for i in range(12):
        pick = [(i + j) % 8 for j in (0, 1, 3)] if i % 2 else [(i + j) % 8 for j in (0, 2, 5)]
        rows.append({"id": i, **{x: " ".join(WORDS[x][p] for p in pick) for x in WORDS}})
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch):
    """Each test sees the once-per-process deprecation warnings afresh."""
    from tealeaves import _cli_args, _params

    monkeypatch.setattr(_cli_args, "_WARNED", set())
    monkeypatch.setattr(_params, "_WARNED", set())


def _warnings(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if ln.startswith("tealeaves: warning: ")]


def _deprecations(err: str) -> dict[str, str]:
    """``{old: new}`` of the deprecation lines on stderr (each once, nothing else warned)."""
    lines = _warnings(err)
    out = {}
    for ln in lines:
        assert " is deprecated and will be removed; use " in ln, ln
        old, new = ln.removeprefix("tealeaves: warning: ").split(" is deprecated and will be removed; use ")
        assert old not in out, err
        out[old] = new
    return out


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory):
    return _tuples(tmp_path_factory.mktemp("renames") / "t.jsonl")


def _npz(path):
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def _same_model(a, b):
    x, y = _npz(a / "pltm.npz"), _npz(b / "pltm.npz")
    assert x.keys() == y.keys()
    for k in x:
        np.testing.assert_array_equal(x[k], y[k])
    assert (a / "topics.json").read_text(encoding="utf-8") == (b / "topics.json").read_text(encoding="utf-8")


def test_pltm_fit_old_spellings(corpus_file, tmp_path, run_cli):
    common = [str(corpus_file), "--max-df", "1", "--seed", "2"]
    new = run_cli(["pltm", "fit", *common, "-k", "3", "--n-chains", "2", "--n-iter", "12",
                   "--optimize-interval", "4", "--optimize-burn-in", "4", "-j", "2",
                   "-o", str(tmp_path / "new")])
    assert new.code == 0, new.err
    assert not _warnings(new.err)
    old = run_cli(["pltm", "fit", *common, "--k", "3", "--chains", "2", "--iterations", "12",
                   "--optimize-interval", "4", "--burn-in", "4", "--jobs", "2",
                   "--out", str(tmp_path / "old")])
    assert old.code == 0, old.err
    assert _deprecations(old.err) == {"--k": "--n-components", "--chains": "--n-chains",
                                      "--iterations": "--n-iter", "--burn-in": "--optimize-burn-in",
                                      "--jobs": "--n-jobs", "--out": "--output"}
    _same_model(tmp_path / "new", tmp_path / "old")
    also = run_cli(["pltm", "fit", *common, "--n-topics", "3", "--n-chains", "2", "--n-iter", "12",
                    "--optimize-interval", "4", "--optimize-burn-in", "4", "--n-jobs", "2",
                    "--output", str(tmp_path / "also")])
    assert also.code == 0 and _deprecations(also.err) == {"--n-topics": "--n-components"}, also.err
    _same_model(tmp_path / "new", tmp_path / "also")


def test_pltm_fit_old_spelling_is_checked_as_the_new_one(corpus_file, tmp_path, cli_error):
    r = cli_error(["pltm", "fit", str(corpus_file), "--chains", "101", "-o", str(tmp_path / "m")],
                  "--n-chains must be a whole number >= 1 and <= 100, got 101", code=2)
    assert not _warnings(r.err)


@pytest.fixture(scope="module")
def model(corpus_file, tmp_path_factory):
    from tealeaves.cli import main

    out = tmp_path_factory.mktemp("model") / "m"
    assert main(["pltm", "fit", str(corpus_file), "-k", "2", "--n-chains", "1", "--n-iter", "8",
                 "--max-df", "1", "-o", str(out)]) == 0
    return out


def test_pltm_topics_and_infer_old_spellings(model, corpus_file, tmp_path, run_cli):
    new = run_cli(["pltm", "topics", str(model), "--n-top", "4", "-o", str(tmp_path / "new.json")])
    old = run_cli(["pltm", "topics", str(model), "--top", "4", "--out", str(tmp_path / "old.json")])
    assert new.code == old.code == 0, old.err
    assert _deprecations(old.err) == {"--top": "--n-top", "--out": "--output"} and not _warnings(new.err)
    assert (tmp_path / "new.json").read_bytes() == (tmp_path / "old.json").read_bytes()
    _cli_args._WARNED.clear()  # once per process: --out again
    new = run_cli(["pltm", "infer", str(model), str(corpus_file), "--n-iter", "6", "--burn-in", "2",
                   "--seed", "1", "-o", str(tmp_path / "new.npy")])
    old = run_cli(["pltm", "infer", str(model), str(corpus_file), "--iterations", "6", "--burn-in", "2",
                   "--seed", "1", "--out", str(tmp_path / "old.npy")])
    assert new.code == old.code == 0, old.err
    assert _deprecations(old.err) == {"--iterations": "--n-iter", "--out": "--output"}
    assert not _warnings(new.err)
    np.testing.assert_array_equal(np.load(tmp_path / "new.npy"), np.load(tmp_path / "old.npy"))


def test_cnpmi_old_spelling(model, corpus_file, tmp_path, run_cli):
    ref = tmp_path / "ref"
    assert run_cli(["index", "build-aligned", str(corpus_file), "-o", str(ref)]).code == 0
    new = run_cli(["cnpmi", str(model), "--reference", str(ref), "--n-top", "3", "--format", "json"])
    old = run_cli(["cnpmi", str(model), "--reference", str(ref), "--top", "3", "--format", "json"])
    assert new.code == old.code == 0, old.err
    assert _deprecations(old.err) == {"--top": "--n-top"} and not _warnings(new.err)
    assert new.out == old.out


def test_estimator_old_spellings(small, run_cli):  # noqa: F811 (the imported fixture)
    tmp, refs = small
    common = ["estimator", "features", str(tmp / "topics-sv.json"), "--reference", str(refs["poor"]),
              "--rich", str(refs["rich"]), "--dictionary", str(tmp / "en-sv.txt")]
    new = run_cli([*common, "--n-top", "3", "-o", str(tmp / "new.csv")])
    old = run_cli([*common, "--top", "3", "--out", str(tmp / "old.csv")])
    assert new.code == old.code == 0, old.err
    assert _deprecations(old.err) == {"--top": "--n-top", "--out": "--output"} and not _warnings(new.err)
    assert (tmp / "new.csv").read_bytes() == (tmp / "old.csv").read_bytes()
    for name in ("new", "old"):
        _cli_args._WARNED.clear()
        flag = "-o" if name == "new" else "--out"
        r = run_cli(["estimator", "train", str(tmp / f"{name}.csv"), "--features", "base,gap", flag,
                     str(tmp / f"{name}.json")])
        assert r.code == 0, r.err
        r = run_cli(["estimator", "apply", str(tmp / f"{name}.json"), str(tmp / f"{name}.csv"), flag,
                     str(tmp / f"{name}-applied.csv")])
        assert r.code == 0, r.err
    assert (tmp / "new-applied.csv").read_bytes() == (tmp / "old-applied.csv").read_bytes()


# -- Python ---------------------------------------------------------------------------------------------
def _one_future_warning(caught, old: str, new: str) -> None:
    future = [w for w in caught if issubclass(w.category, FutureWarning)]
    assert len(future) == 1, [str(w.message) for w in caught]
    assert f"'{old}' is deprecated" in str(future[0].message) and f"use '{new}'" in str(future[0].message)


def test_n_topics_keyword_gives_one_future_warning_and_the_same_model():
    from tealeaves.corpus.aligned import AlignedCorpus, default_preprocessor
    from tealeaves.corpus.parallel import ParallelTexts
    from tealeaves.models.polylingual import PolylingualTopicModel

    rows = [[" ".join(WORDS[x][(i + j) % 8] for j in (0, 1, 3)) for i in range(10)] for x in WORDS]
    texts = ParallelTexts([str(i) for i in range(10)], dict(zip(WORDS, rows, strict=True)))
    corpus = texts.to_aligned({x: default_preprocessor(x, max_df=1.0) for x in WORDS})
    assert isinstance(corpus, AlignedCorpus)
    settings = {"n_iter": 10, "n_chains": 2, "optimize_burn_in": 4, "optimize_interval": 4, "random_state": 5}
    new = PolylingualTopicModel(n_components=3, **settings).fit(corpus)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = PolylingualTopicModel(n_topics=3, **settings)
    _one_future_warning(caught, "n_topics", "n_components")
    old.fit(corpus)
    assert old.n_components == 3 and old.description() == new.description()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert old.n_topics == 3
    _one_future_warning(caught, "n_topics", "n_components")
    for x in WORDS:
        np.testing.assert_array_equal(old.topic_word_[x], new.topic_word_[x])
    np.testing.assert_array_equal(old.doc_topic_, new.doc_topic_)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert new.top_words("en", n=4) == new.top_words("en", n_top=4) == new.top_words("en", 4)
    _one_future_warning(caught, "n", "n_top")
    from tealeaves.errors import ParameterError

    with pytest.raises(ParameterError, match="got both 'n_topics' and 'n_components'"):
        PolylingualTopicModel(n_topics=3, n_components=3)


def test_saved_folder_keeps_its_n_topics_key_and_reloads(model):
    from tealeaves.multilingual.pltm_io import load_pltm

    with np.load(model / "pltm.npz") as z:
        header = json.loads(str(z["header"]))
    assert header["hyperparameters"]["n_topics"] == 2 and "n_components" not in header["hyperparameters"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loaded, _ = load_pltm(model)
    assert loaded.n_components == 2


def test_python_old_names(tmp_path):
    from tealeaves.multilingual import measures as M
    from tealeaves.multilingual import topics as T

    path = tmp_path / "topics.json"
    path.write_text(json.dumps({"en": [["King", "city", "sheep"]], "sv": [["kungen", "staden", "fåren"]]}),
                    encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = T.read_topics(path, n_top=2)
    _one_future_warning(caught, "read_topics", "read_multilingual_topics")
    expected = {"en": [["king", "city"]], "sv": [["kungen", "staden"]]}
    assert old == T.read_multilingual_topics(path, n_top=2) == expected
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert T.read_multilingual_topics(path, top=2) == old
    _one_future_warning(caught, "top", "n_top")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert M.check_topics(old) == M.check_multilingual_topics(old) == (["en", "sv"], 1, 2)
    _one_future_warning(caught, "check_topics", "check_multilingual_topics")
    sentinel = object()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert M.as_reference(sentinel, ["en"]) is M.as_aligned_reference(sentinel, ["en"]) is sentinel
    _one_future_warning(caught, "as_reference", "as_aligned_reference")


def test_language_tables_have_distinct_names():
    from tealeaves.corpus import aligned
    from tealeaves.multilingual import names

    assert isinstance(aligned.LANGUAGE_NAMES, dict) and isinstance(names.HAO2018_LANGUAGES, tuple)
    assert set(names.HAO2018_LANGUAGES) == set(aligned.LANGUAGE_NAMES) - {"en"}
    for module, new in ((aligned, "LANGUAGE_NAMES"), (names, "HAO2018_LANGUAGES")):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert module.LANGUAGES is getattr(module, new)
        _one_future_warning(caught, "LANGUAGES", new)


@pytest.fixture
def aligned_reference(corpus_file, tmp_path):
    """An aligned reference built with ``output=``, and the same built with the old keyword ``out=``."""
    from tealeaves.multilingual.aligned_build import build_aligned_reference

    new, _ = build_aligned_reference([corpus_file], output=tmp_path / "new", name="ref")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old, _ = build_aligned_reference([corpus_file], out=tmp_path / "old", name="ref")
    _one_future_warning(caught, "out", "output")
    return new, old, tmp_path


def test_build_aligned_reference_out_keyword(aligned_reference):
    new, old, tmp_path = aligned_reference
    files = sorted(p.name for p in (tmp_path / "new").iterdir())
    assert files == sorted(p.name for p in (tmp_path / "old").iterdir())
    for name in files:
        assert (tmp_path / "new" / name).read_bytes() == (tmp_path / "old" / name).read_bytes(), name
    assert new.label == old.label


def test_zero_cooccurrence_keyword_is_zero(aligned_reference):
    from tealeaves.multilingual import measures as M
    from tealeaves.multilingual.features import topic_features

    ref = aligned_reference[0]
    topics = {x: [WORDS[x][:4], WORDS[x][4:]] for x in WORDS}
    for func in (M.cnpmi, M.inpmi):
        expected = func(topics, ref, ["en", "sv"], zero="zero")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = func(topics, ref, ["en", "sv"], zero_cooccurrence="zero")
        _one_future_warning(caught, "zero_cooccurrence", "zero")
        assert got.to_dict() == expected.to_dict() and "zero=zero" in str(got.signature)
    frame, sigs = topic_features(topics, ref, "en", "sv", zero="epsilon")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old_frame, old_sigs = topic_features(topics, ref, "en", "sv", zero_cooccurrence="epsilon")
    _one_future_warning(caught, "zero_cooccurrence", "zero")
    assert old_frame.equals(frame) and old_sigs == sigs
