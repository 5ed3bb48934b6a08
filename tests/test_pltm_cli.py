"""``tealeaves pltm fit|topics|infer`` on real Bible text, then ``cnpmi`` and ``human build-study``
end to end; a saved model reloads with the same topics and the same fold-in."""

from __future__ import annotations

import io
import json
import sys

import numpy as np
import pytest

from conftest import require_data
from tealeaves.corpus.parallel import BIBLE_TEXTS_FULL, bible_chapters
from test_bible_vs_modern import _brute_cnpmi, _token_sets

BOOKS = ("RUT", "JON", "PHM", "JUD", "3JN", "2JN", "OBA", "HAG")  # 16 short chapters in both Bibles


@pytest.fixture(scope="module")
def bible_jsonl(tmp_path_factory):
    require_data(BIBLE_TEXTS_FULL["en"])
    require_data(BIBLE_TEXTS_FULL["sv"])
    texts = bible_chapters({x: BIBLE_TEXTS_FULL[x] for x in ("en", "sv")}, canon=BOOKS)
    path = tmp_path_factory.mktemp("bible") / "tuples.jsonl"
    with open(path, "w", encoding="utf-8") as fh:
        for i, tid in enumerate(texts.ids):
            fh.write(json.dumps({"id": tid, "en": texts.texts["en"][i], "sv": texts.texts["sv"][i]}) + "\n")
    return path, texts


@pytest.fixture(scope="module")
def fitted(bible_jsonl, tmp_path_factory):
    from tealeaves.cli import main

    path, _ = bible_jsonl
    out = tmp_path_factory.mktemp("model") / "model"
    assert main(["pltm", "fit", str(path), "-k", "4", "--chains", "2", "--iterations", "40",
                 "--optimize-interval", "10", "--seed", "3", "-o", str(out)]) == 0
    return out


def test_fit_writes_a_model_equal_to_the_python_fit(bible_jsonl, fitted):
    from tealeaves.corpus.aligned import default_preprocessor
    from tealeaves.models.polylingual import PolylingualTopicModel
    from tealeaves.multilingual.pltm_io import load_pltm

    _, texts = bible_jsonl
    corpus = texts.to_aligned({x: default_preprocessor(x) for x in ("en", "sv")})
    direct = PolylingualTopicModel(n_components=4, n_chains=2, n_iter=40, optimize_interval=10,
                                   optimize_burn_in=20, random_state=3).fit(corpus)
    loaded, preps = load_pltm(fitted)
    assert loaded.languages_ == ["en", "sv"]
    for x in ("en", "sv"):
        np.testing.assert_array_equal(loaded.topic_word_[x], direct.topic_word_[x])
        assert loaded.top_words(x, 7) == direct.top_words(x, 7)
        np.testing.assert_array_equal(loaded.language_doc_topic(x), direct.language_doc_topic(x))
        assert list(preps[x].vocabulary_) == list(corpus.vocabulary(x))
    np.testing.assert_array_equal(loaded.alpha_, direct.alpha_)
    # held-out fold-in: the loaded model infers exactly what the fitted one does
    held = texts.to_aligned(preps, fit=False)
    np.testing.assert_array_equal(loaded.transform(held, n_iter=20, burn_in=10, random_state=1),
                                  direct.transform(held, n_iter=20, burn_in=10, random_state=1))


def test_pipeline(bible_jsonl, fitted, tmp_path, run_cli):
    """pltm fit -> pltm topics -> cnpmi (against a user-built reference) -> human build-study."""
    from tealeaves.multilingual.pltm_io import load_pltm

    path, texts = bible_jsonl
    topics = tmp_path / "topics.json"
    r = run_cli(["pltm", "topics", str(fitted), "--top", "6", "-o", str(topics)])
    assert r.code == 0, r.err
    words = json.loads(topics.read_text(encoding="utf-8"))
    model, _ = load_pltm(fitted)
    assert words == {x: model.top_words(x, 6) for x in ("en", "sv")}
    ref = tmp_path / "ref"
    assert run_cli(["index", "build-aligned", str(path), "-o", str(ref)]).code == 0
    r = run_cli(["cnpmi", str(topics), "--reference", str(ref), "--top", "6", "--format", "json"])
    assert r.code == 0, r.err
    scores = json.loads(r.out)
    en, sv = _token_sets(texts.texts["en"], "en"), _token_sets(texts.texts["sv"], "sv")
    pairs = [(a, b) for a, b in zip(en, sv, strict=True) if a is not None and b is not None]
    expected = [_brute_cnpmi(pairs, words["en"][k], words["sv"][k]) for k in range(4)]
    assert scores["cnpmi"]["per_topic"] == pytest.approx(expected, abs=1e-12)
    # the model folder itself is accepted as TOPICS
    r2 = run_cli(["cnpmi", str(fitted), "--reference", str(ref), "--top", "6", "--format", "json"])
    assert json.loads(r2.out)["cnpmi"]["per_topic"] == scores["cnpmi"]["per_topic"]
    study = tmp_path / "study.json"
    r = run_cli(["human", "build-study", str(fitted / "en.npz"), "--tasks", "multilingual_rating",
                 "--multilingual", str(topics), "--checks", "1", "-o", str(study)])
    assert r.code == 0, r.err
    items = json.loads(study.read_text(encoding="utf-8"))["items"]
    rating = [i for i in items if i["task"] == "multilingual_rating" and not i.get("check")]
    assert len(rating) == 4
    assert [i["words"] for i in rating] == [{"en": words["en"][k], "sv": words["sv"][k]} for k in range(4)]


def test_language_files_are_ordinary_models(fitted):
    from tealeaves.models.adapters import load_model
    from tealeaves.multilingual.pltm_io import load_pltm

    model, _ = load_pltm(fitted)
    for x in ("en", "sv"):
        mono = load_model(fitted / f"{x}.npz")
        np.testing.assert_allclose(mono.topic_word_, model.topic_word_[x], rtol=1e-12)
        assert mono.top_words(5) == model.top_words(x, 5)


def test_infer_command_matches_transform(bible_jsonl, fitted, tmp_path, run_cli):
    from tealeaves.multilingual.pltm_io import load_pltm

    path, texts = bible_jsonl
    out = tmp_path / "theta.npy"
    r = run_cli(["pltm", "infer", str(fitted), str(path), "--iterations", "20", "--burn-in", "10",
                 "--seed", "5", "-o", str(out)])
    assert r.code == 0, r.err
    model, preps = load_pltm(fitted)
    expected = model.transform(texts.to_aligned(preps, fit=False), n_iter=20, burn_in=10, random_state=5)
    np.testing.assert_array_equal(np.load(out), expected)
    assert np.allclose(np.load(out).sum(axis=1), 1.0)



def test_infer_folds_in_monolingual_held_out_documents(bible_jsonl, fitted, tmp_path, run_cli):
    """Swedish-only held-out documents: one language is enough for fold-in (not for a reference)."""
    from tealeaves.corpus.parallel import ParallelTexts
    from tealeaves.multilingual.pltm_io import load_pltm

    _, texts = bible_jsonl
    src = tmp_path / "sv.jsonl"
    src.write_text("\n".join(json.dumps({"id": i, "sv": t}) for i, t in zip(texts.ids, texts.texts["sv"],
                                                                            strict=True)), encoding="utf-8")
    r = run_cli(["pltm", "infer", str(fitted), str(src), "--iterations", "20", "--burn-in", "10",
                 "--seed", "2", "--format", "json"])
    assert r.code == 0, r.err
    model, preps = load_pltm(fitted)
    sv = ParallelTexts(list(texts.ids), {"sv": texts.texts["sv"]}).to_aligned({"sv": preps["sv"]}, fit=False)
    expected = model.transform(sv, n_iter=20, burn_in=10, random_state=2)
    assert json.loads(r.out)["theta"] == expected.tolist()


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_fit_shows_per_sweep_progress_on_a_terminal_only_and_it_changes_nothing(bible_jsonl, tmp_path,
                                                                                monkeypatch, capsys):
    from tealeaves.cli import main
    from tealeaves.multilingual.pltm_io import load_pltm

    path, _ = bible_jsonl
    common = ["pltm", "fit", str(path), "-k", "3", "--chains", "2", "--iterations", "12",
              "--optimize-interval", "4", "--seed", "1"]
    streams = {}
    for name, extra in (("terminal", ["--jobs", "2"]), ("quiet", ["--quiet"])):  # two threads share the bar
        streams[name] = _Terminal()
        with monkeypatch.context() as m:
            m.setattr(sys, "stderr", streams[name])
            assert main([*common, *extra, "-o", str(tmp_path / name)]) == 0
    assert main([*common, "-o", str(tmp_path / "log")]) == 0  # stderr captured: not a terminal
    log = capsys.readouterr().err
    shown = streams["terminal"].getvalue()
    # the bar is redrawn in place and ends on the last sweep of both chains, with tokens/s and an ETA
    assert "\rsweep [" in shown and "tealeaves: sampling 2 chain(s) x 12 sweeps" in shown
    final = shown.split("\r")[-1]
    assert final.startswith("sweep [" + "#" * 30 + "] 24/24 sweeps (chains 12, 12 of 12; ")
    assert "M tokens/s), ETA 0m00s   \ntealeaves: done in " in final  # the finished bar ends its line
    assert streams["quiet"].getvalue() == ""  # --quiet: no stage lines and no progress
    assert "sweep [" not in log and "tealeaves: sampling 2 chain(s)" in log  # a log gets stages only
    models = [load_pltm(tmp_path / name)[0] for name in ("terminal", "quiet", "log")]
    for other in models[1:]:
        for x in ("en", "sv"):
            np.testing.assert_array_equal(other.topic_word_[x], models[0].topic_word_[x])
        np.testing.assert_array_equal(other.alpha_, models[0].alpha_)
        np.testing.assert_array_equal(other.chain_log_likelihoods_, models[0].chain_log_likelihoods_)
