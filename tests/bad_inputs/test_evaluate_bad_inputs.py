"""Bad inputs of ``tealeaves evaluate`` and ``tealeaves.evaluate``: clean errors before anything is scored.

The command line runs in process (``cli_error``: exit status, one ``tealeaves: error:`` line,
no traceback) and, for a few cases, in a subprocess; the API raises the error class.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tealeaves
from conftest import DOCS
from tealeaves.corpus import Corpus
from tealeaves.errors import (
    IncomparableError,
    InputFormatError,
    InputNotFoundError,
    ParameterError,
    UnsupportedModelError,
)
from tealeaves.sweep.evaluation import evaluate


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Training and test files over :data:`DOCS`, two saved models over their words, a store path."""
    root = tmp_path_factory.mktemp("evaluate")
    (root / "train.txt").write_text("\n".join(DOCS[:24]) + "\n", encoding="utf-8")
    (root / "test.txt").write_text("\n".join(DOCS[24:]) + "\n", encoding="utf-8")
    words = sorted({w for d in DOCS for w in d.split()})
    rng = np.random.default_rng(0)
    for name in ("a", "b"):
        phi = rng.dirichlet(np.ones(len(words)), size=2)
        tealeaves.load_model(phi, vocabulary=words, alpha=0.5).save(root / f"{name}.npz")
    far = ["rug", "xyzzy", "plugh"]  # shares one rare word with the test documents
    tealeaves.load_model(np.full((2, 3), 1 / 3), vocabulary=far, alpha=0.5).save(root / "far.npz")
    (root / "bad.json").write_text('{"a": "a.npz",', encoding="utf-8")
    (root / "bad.toml").write_text('a = "a.npz\n', encoding="utf-8")
    (root / "missing.json").write_text('{"a": "a.npz", "gone": "nowhere.npz"}', encoding="utf-8")
    (root / "list.json").write_text('["a.npz"]', encoding="utf-8")
    (root / "number.toml").write_text("a = 3\n", encoding="utf-8")
    (root / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    train = Corpus.from_token_lists([d.split() for d in DOCS[:24]])
    test = Corpus.from_token_lists([d.split() for d in DOCS[24:]], vocabulary=train.vocabulary)
    evaluate({"a": str(root / "a.npz")}, train=train, test=test, output=root / "store.sqlite", progress=False)
    return root


def _argv(files: Path, *models: str) -> list[str]:
    return ["evaluate", files / "train.txt", *models, "--test", files / "test.txt",
            "-o", files / "out.sqlite"]


def test_evaluate_cli_bad_model_lists(files, cli_error):
    a, b = files / "a.npz", files / "b.npz"
    cli_error(_argv(files), "no model to evaluate")
    cli_error(_argv(files, f"x={a}", f"x={b}"), "model name 'x' is given twice")
    cli_error(_argv(files, f"x={a}", "--group", f"x={a},{b}"), "model name 'x' is given twice")
    cli_error(_argv(files, f"x-r0={a}", "--group", f"x={a},{b}"), "'x-r0' more than once")  # a run's name
    cli_error(_argv(files, "--group", "g=,"), "--group g lists no model")
    cli_error(_argv(files, "--group", "g"), "is not NAME=PATH")
    cli_error(_argv(files, "--group", f"g={a},{a}"), "lists the same model twice")
    cli_error(_argv(files, str(a)), "is not NAME=PATH")
    cli_error(_argv(files, f"a b={a}"), "model name 'a b' is not usable")
    cli_error(_argv(files, f"x={files / 'nowhere.npz'}"), "does not exist")
    assert not (files / "out.sqlite").exists()


def test_evaluate_cli_bad_manifests(files, cli_error):
    cli_error(_argv(files, "--manifest", files / "bad.json"), "is not valid JSON")
    cli_error(_argv(files, "--manifest", files / "bad.toml"), "is not valid TOML")
    cli_error(_argv(files, "--manifest", files / "missing.json"), "nowhere.npz' of 'gone' does not exist")
    cli_error(_argv(files, "--manifest", files / "list.json"), "holds no table of models")
    cli_error(_argv(files, "--manifest", files / "number.toml"), "must be a path or a list of paths")
    cli_error(_argv(files, "--manifest", files / "absent.json"), "manifest")
    cli_error(_argv(files, f"z={files / 'a.npz'}", "--manifest", files / "missing.json"), "does not exist")
    cli_error(_argv(files, f"a={files / 'a.npz'}", "--manifest", files / "missing.json"),
              "'a' is given twice")


def test_evaluate_cli_models_that_cannot_be_scored(files, cli_error):
    cli_error(_argv(files, f"far={files / 'far.npz'}"), "at least 50% are needed")
    cli_error(_argv(files, f"img={files / 'image.png'}"), "image.png")
    cli_error(_argv(files, f"x={files / 'store.sqlite'}#nope"), "nope")  # a store's unknown model id
    cli_error(_argv(files, f"x={files / 'a.npz'}", "--test-fraction", "0.2"), "--test and --test-fraction")
    cli_error(_argv(files, f"x={files / 'a.npz'}", "--n-top", "1"), "--n-top must be", code=2)
    cli_error(_argv(files, f"x={files / 'a.npz'}", "--measures", ","), "--measures lists no measure")
    assert not (files / "out.sqlite").exists()


def test_evaluate_cli_in_a_subprocess_fails_cleanly(files):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for argv, fragment in (([], "no model to evaluate"),
                           (["--manifest", str(files / "bad.json")], "is not valid JSON"),
                           ([f"far={files / 'far.npz'}"], "knows"),
                           ([f"a={files / 'a.npz'}", "--vectors", str(files / "train.txt")], "train.txt")):
        run = subprocess.run([sys.executable, "-m", "tealeaves", *map(str, _argv(files, *argv))],
                             capture_output=True, text=True, env=env, timeout=120)
        assert run.returncode == 1, run.stderr
        lines = run.stderr.strip().splitlines()
        assert lines[-1].startswith("tealeaves: error: ") and fragment in lines[-1], run.stderr
        assert "Traceback" not in run.stderr


@pytest.fixture(scope="module")
def corpora():
    train = Corpus.from_token_lists([d.split() for d in DOCS[:24]])
    return train, Corpus.from_token_lists([d.split() for d in DOCS[24:]], vocabulary=train.vocabulary)


@pytest.mark.parametrize("models, error, fragment", [
    ({}, ParameterError, "models is empty"),
    ([("a", "a.npz")], ParameterError, "models must be a mapping"),
    ("a.npz", ParameterError, "models must be a mapping"),
    ({"g": []}, ParameterError, "group 'g' lists no model"),
    ({1: "a.npz"}, ParameterError, "model name 1 is not usable"),
    ({"a#b": "a.npz"}, ParameterError, "is not usable"),
    ({"g": ["a.npz", "b.npz"], "g-r1": "a.npz"}, ParameterError, "'g-r1' more than once"),
    ({"x": 42}, UnsupportedModelError, "int"),
    ({"x": "nowhere.npz"}, InputNotFoundError, "does not exist"),
    ({"far": "far.npz"}, IncomparableError, "at least 50% are needed"),
])
def test_evaluate_api_refusals(models, error, fragment, files, corpora, tmp_path, monkeypatch):
    monkeypatch.chdir(files)
    with pytest.raises(error, match=fragment.replace("(", r"\(")):
        evaluate(models, train=corpora[0], test=corpora[1], output=tmp_path / "s.sqlite", progress=False)
    assert not (tmp_path / "s.sqlite").exists()


def test_evaluate_api_wrong_corpus_types_and_options(files, corpora, tmp_path):
    model = {"a": str(files / "a.npz")}
    out = tmp_path / "s.sqlite"
    with pytest.raises(ParameterError, match="training corpus must be a tealeaves Corpus"):
        evaluate(model, train="train.txt", test=corpora[1], output=out)
    with pytest.raises(ParameterError, match="test corpus must be a tealeaves Corpus"):
        evaluate(model, train=corpora[0], test=DOCS, output=out)
    with pytest.raises(ParameterError, match="no coherence measure"):
        evaluate(model, train=corpora[0], test=corpora[1], output=out, measures=[])
    with pytest.raises(ParameterError, match="n_top"):
        evaluate(model, train=corpora[0], test=corpora[1], output=out, n_top=1)
    assert not out.exists()


def test_evaluate_manifest_reasons_are_recorded_not_raised(files, corpora, tmp_path):
    """A topics-only model (ranked words, no probabilities) is scored with its reasons, not refused."""
    import json
    import sqlite3

    topics = tmp_path / "topics.txt"
    topics.write_text("cat dog mat rug\nsun moon star sky\n", encoding="utf-8")
    out = tmp_path / "s.sqlite"
    evaluate({"ranked": str(topics)}, train=corpora[0], test=corpora[1], output=out, progress=False)
    with sqlite3.connect(out) as conn:
        (measures,) = conn.execute("SELECT measures FROM models").fetchone()
    m = json.loads(measures)
    assert m["completion_perplexity"] is None and m["unavailable"]["completion_perplexity"]
    assert {k for k, v in m.items() if v is None} == set(m["unavailable"])
    assert "fewer than the 25 top words" in m["unavailable"]["diversity"]
    assert "fewer than the 10 top words" in m["unavailable"]["irbo"]


def test_evaluate_manifest_file_errors_are_input_format_errors(files):
    from tealeaves.sweep.cli import read_manifest

    with pytest.raises(InputFormatError, match="not valid JSON"):
        read_manifest(str(files / "bad.json"))
    assert read_manifest(str(files / "missing.json")) == {"a": str(files / "a.npz"),
                                                          "gone": str(files / "nowhere.npz")}


def test_evaluate_vectors_files_that_cannot_be_used(files, cli_error):
    a = f"a={files / 'a.npz'}"
    (files / "vec_nan.txt").write_text("cat 0.1 nan\ndog 0.2 0.3\n", encoding="utf-8")
    (files / "vec_ragged.txt").write_text("cat 0.1 0.2\ndog 0.2\n", encoding="utf-8")
    (files / "vec_other.txt").write_text("xyzzy 0.1 0.2\nplugh 0.2 0.3\n", encoding="utf-8")
    (files / "vec_empty.txt").write_text("", encoding="utf-8")
    (files / "vec_header.txt").write_text("5 2\ncat 0.1 0.2\n", encoding="utf-8")  # truncated
    (files / "vec_zero.txt").write_text("cat 0 0\ndog 0.2 0.3\n", encoding="utf-8")
    (files / "vec_binary.bin").write_bytes(b"\xff\xfe\x00\x01word2vec binary")
    for name, fragment in (("vec_nan.txt", "NaN or infinite"), ("vec_ragged.txt", "needs the same dimension"),
                           ("vec_other.txt", "none of the requested words"), ("vec_empty.txt", "is empty"),
                           ("vec_header.txt", "header announces 5 vectors"), ("vec_zero.txt", "all zeros"),
                           ("vec_binary.bin", "vec_binary.bin"), ("absent.txt", "does not exist")):
        cli_error([*_argv(files, a), "--vectors", files / name], fragment)
        assert not (files / "out.sqlite").exists()


def test_evaluate_vectors_of_a_wrong_type_refused(files, corpora, tmp_path):
    train, test = corpora
    with pytest.raises(ParameterError, match="vectors must be WordVectors or the path"):
        evaluate({"a": str(files / "a.npz")}, train=train, test=test, output=tmp_path / "s.sqlite",
                 vectors=np.zeros((2, 2)), progress=False)
    assert not (tmp_path / "s.sqlite").exists()
