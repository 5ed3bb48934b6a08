"""Engine settings of ``tealeaves sweep --settings`` and ``sweep(settings=...)``
(:mod:`tealeaves.sweep.engines`, declared in :data:`tealeaves.sweep.params.ENGINE_SETTINGS`): wrong types,
out-of-range values and unknown names refused before any engine sees them; an engine's own exception
reported as an error of the settings; a model that did not train refused, never stored.

Each case asserts the exit status and message fragment (CLI, in-process) and the error class (API).
A comment "before:" says what the case did before its fix."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from tealeaves.errors import InvalidModelError, ParameterError
from tealeaves.sweep import sweep
from test_sweep_runs import lda_corpus, write_corpus

# issue 20's cases of this command: the CLI runs in a subprocess, as a user runs it
pytestmark = pytest.mark.cli_subprocess


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory):
    return write_corpus(tmp_path_factory.mktemp("engines") / "c.txt", n_docs=40)


SETTINGS = [
    ("sklearn", '{"max_iter": -1}', "engine 'sklearn' setting 'max_iter' must be a whole number >= 1"),
    ("sklearn", '{"max_iter": "ten"}', "setting 'max_iter' must be a whole number >= 1"),  # before: exit 70
    ("sklearn", '{"max_iter": 2.5}', "setting 'max_iter' must be a whole number"),
    ("sklearn", '{"learning_method": "fast"}', "setting 'learning_method' must be one of batch, online"),
    ("sklearn", '{"learning_decay": 2}', "setting 'learning_decay' must be a number >= 0 and <= 1"),
    ("sklearn", '{"doc_topic_prior": -1}', "setting 'doc_topic_prior' must be a number > 0"),
    ("sklearn", '{"max_iter": null}', "setting 'max_iter' must be a whole number"),
    # before: gensim passes -1 stored an untrained model; tomotopy alpha -1 died by SIGABRT
    ("gensim", '{"passes": -1}', "engine 'gensim' setting 'passes' must be a whole number >= 1"),
    ("gensim", '{"passes": 0}', "setting 'passes' must be a whole number >= 1"),
    ("gensim", '{"iterations": 0}', "setting 'iterations' must be a whole number >= 1"),
    ("gensim", '{"alpha": -1}', "setting 'alpha' must be a number > 0"),
    ("gensim", '{"alpha": "big"}', "must be one of symmetric, asymmetric, auto"),
    ("gensim", '{"decay": 0.2}', "setting 'decay' must be a number > 0.5"),
    ("gensim", '{"distributed": true}', "engine 'gensim' takes no setting distributed"),
    ("tomotopy", '{"alpha": -1}', "engine 'tomotopy' setting 'alpha' must be a number > 0"),
    ("tomotopy", '{"eta": 0}', "setting 'eta' must be a number > 0"),
    ("tomotopy", '{"iterations": 0}', "setting 'iterations' must be a whole number >= 1"),
    ("tomotopy", '{"alpha": 1e999}', "setting 'alpha' must be a finite number, got inf"),
    ("gibbs", '{"n_iter": 0}', "engine 'gibbs' setting n_iter must be a whole number >= 1"),
    ("gibbs", '{"alpha": -1}', "engine 'gibbs' setting alpha must be a number > 0"),
]


@pytest.mark.parametrize("engine, settings, fragment", SETTINGS)
def test_engine_settings_refused_before_any_fit(engine, settings, fragment, corpus_file, tmp_path, cli_error):
    import json

    out = tmp_path / "r.sqlite"
    cli_error(["sweep", corpus_file, "-k", "2", "--seeds", "1", "--engine", engine, "--settings", settings,
               "-o", out], fragment)
    assert not out.exists()  # refused before the store was opened
    with pytest.raises(ParameterError, match=f"engine '{engine}'"):
        sweep(lda_corpus(n_docs=30), [2], seeds=1, engine=engine, settings=json.loads(settings), output=out,
              progress=False)
    assert not out.exists()


def test_tomotopy_negative_alpha_does_not_kill_the_process(corpus_file, tmp_path):
    # before: the process died by SIGABRT inside tomotopy; a subprocess shows the exit status as is
    pytest.importorskip("tomotopy")
    argv = ["sweep", str(corpus_file), "-k", "2", "--seeds", "1", "--engine", "tomotopy",
            "--settings", '{"alpha": -1}', "-o", str(tmp_path / "r.sqlite")]
    r = subprocess.run([sys.executable, "-m", "tealeaves", *argv], capture_output=True, text=True, timeout=99)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert r.stderr.strip().splitlines()[-1].startswith("tealeaves: error: engine 'tomotopy' setting 'alpha'")
    assert "Traceback" not in r.stderr


def test_valid_settings_of_every_engine_still_fit(corpus_file, tmp_path, run_cli):
    from tealeaves.sweep import load_results

    valid = (("sklearn", '{"max_iter": 2, "learning_method": "online", "doc_topic_prior": null}'),
             ("gensim", '{"passes": 1, "iterations": 5, "alpha": "auto", "eta": 0.1}'),
             ("tomotopy", '{"iterations": 5, "alpha": 0.5}'), ("gibbs", '{"n_iter": 5}'))
    for engine, settings in valid:
        if engine in ("gensim", "tomotopy"):
            pytest.importorskip(engine)
        out = tmp_path / f"{engine}.sqlite"
        r = run_cli(["sweep", corpus_file, "-k", "2", "--seeds", "1", "--engine", engine,
                     "--settings", settings, "-o", out])
        assert r.code == 0, r.err
        models = load_results(out).models
        assert list(models["engine"]) == [engine]


def test_an_engine_libraries_own_error_names_the_setting(tmp_path):
    from tealeaves.sweep.engines import Engine, guarded

    def fit(train, k, seed, settings):
        raise ValueError(f"The 'shrink' parameter must be in the range [0, 1]; got {settings['shrink']}")

    engine = Engine("toy", guarded("toy", fit))
    with pytest.raises(ParameterError, match=r"engine 'toy' refused its settings shrink at K=2 \(ValueError"):
        sweep(lda_corpus(n_docs=30), [2], seeds=1, engine=engine, settings={"shrink": 7, "other": 1},
              output=tmp_path / "r.sqlite", progress=False)


def test_a_model_that_did_not_train_is_refused_and_not_stored(tmp_path):
    from tealeaves.models.adapters.arrays import AdaptedModel
    from tealeaves.sweep import load_results
    from tealeaves.sweep.engines import Engine, check_trained, guarded

    def fit(train, k, seed, settings):  # an engine whose library ran no update: uniform topics
        model = AdaptedModel(np.full((k, len(train.vocabulary)), 1 / len(train.vocabulary)),
                             list(train.vocabulary))
        check_trained("toy", model, trained=False)
        return model

    out = tmp_path / "r.sqlite"
    with pytest.raises(InvalidModelError, match="engine 'toy' returned a model that was never trained"):
        sweep(lda_corpus(n_docs=30), [2], seeds=1, engine=Engine("toy", guarded("toy", fit)), output=out,
              progress=False)
    assert not out.exists() or load_results(out).models.empty


def test_gensim_model_without_an_update_is_refused():
    pytest.importorskip("gensim")
    from tealeaves.sweep.engines import ENGINES

    fit = ENGINES["gensim"].fit.__wrapped__
    corpus = lda_corpus(n_docs=20)
    with pytest.raises(InvalidModelError, match="never trained"):
        fit(corpus, 2, 0, {"passes": 0, "iterations": 50})  # below the declared bounds: gensim trains nothing


@pytest.mark.parametrize("address, fragment", [
    ("not-an-address", "--scheduler 'not-an-address' is not a Dask address (it is not of the form"),
    ("tcp://[::1", "(Invalid IPv6 URL)"),
    ("tcp://host:port", "Port could not be cast to integer"),
    ("http://10.0.0.5:8786", "the scheme 'http' is not one of tcp"),
])
def test_a_malformed_scheduler_address_fails_at_once(address, fragment, corpus_file, tmp_path, cli_error):
    # before: exit 70 (ValueError) after 15 s of Dask timeouts, leaving the store behind
    import time

    start = time.monotonic()
    out = tmp_path / "r.sqlite"
    cli_error(["sweep", corpus_file, "-k", "2", "--seeds", "1", "--scheduler", address, "-o", out], fragment)
    assert time.monotonic() - start < 5 and not out.exists()
    with pytest.raises(ParameterError, match="is not a Dask address"):
        sweep(lda_corpus(n_docs=30), [2], seeds=1, scheduler=address, output=out, progress=False)
