"""``tealeaves estimator apply`` and :func:`tealeaves.multilingual.estimator_io.load_estimator` on a damaged
estimator file: NaN, infinite (``1e999``) or missing coefficients, bad boosting weights, deep nesting.

Each case asserts a clean error (exit code, ``tealeaves: error:`` and a fragment, no traceback) and the
error class through the API.  A comment "before:" says what the case did before its fix."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from conftest import DEEP
from conftest import write_text as _write

# issue 20's cases of this command: the CLI runs in a subprocess, as a user runs it
pytestmark = pytest.mark.cli_subprocess

COLUMNS = ("C", "cnpmi", "inpmi", "mta", "twc")
SETTINGS = {"cnpmi": {"ref": "poor", "top": "3"}}


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A small estimator trained on a synthetic table, saved, and a table to apply it to."""
    from tealeaves.multilingual.estimator import CoherenceEstimator
    from tealeaves.multilingual.estimator_io import save_estimator, write_table

    folder = tmp_path_factory.mktemp("estimator")
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({c: rng.uniform(0, 1, 12) for c in COLUMNS})
    frame["C"] = 3
    frame["lang"] = "sv"
    frame["target"] = 0.5 * frame["cnpmi"] + 0.1
    est = CoherenceEstimator(features=("base",), n_estimators=3, random_state=0)
    est.fit(frame, frame["target"].to_numpy(), frame["lang"].to_numpy())
    save_estimator(est, folder / "est.json", SETTINGS, ["sv"], 12)
    write_table(folder / "table.csv", frame.drop(columns="target"), SETTINGS, ["en", "sv"])
    return folder / "est.json", folder / "table.csv", est, frame


def _edited(path, tmp_path, edit):
    doc = json.loads(path.read_text())
    edit(doc)
    return _write(tmp_path / "bad.json", json.dumps(doc))  # allow_nan: writes NaN, Infinity


def _learner(key, value):
    def edit(doc):
        doc["boosting"]["learners"][0][key] = value
    return edit


def _coef(value):
    def edit(doc):
        doc["boosting"]["learners"][0]["coef"][1] = value
    return edit


def _weights(values):
    def edit(doc):
        doc["boosting"]["estimator_weights"] = values
    return edit


@pytest.mark.parametrize("edit, fragment", [
    (_coef(float("nan")), "learner 0 has a nan or infinite coefficient"),  # before: estimate 2.804, not 0.409
    (_coef(float("inf")), "learner 0 has a nan or infinite coefficient"),
    (_learner("intercept", float("-inf")), "learner 0 has a nan or infinite coefficient or intercept"),
    (_weights([float("nan"), 1.0, 1.0]), "weights must be finite and non-negative"),
    (_weights([-1.0, 1.0, 1.0]), "weights must be finite and non-negative"),
    (_weights([0.0, 0.0, 0.0]), "every learner has weight 0"),
    (_learner("coef", "x"), "a field is missing or malformed"),
    (_learner("coef", [1.0]), "coefficients for 5 columns"),
])
def test_estimator_file_with_bad_numbers_refused(trained, tmp_path, cli_error, edit, fragment):
    from tealeaves.errors import InputFormatError
    from tealeaves.multilingual.estimator_io import load_estimator

    est, table, _, _ = trained
    bad = _edited(est, tmp_path, edit)
    cli_error(["estimator", "apply", bad, table], fragment)
    with pytest.raises(InputFormatError, match="not a tealeaves coherence estimator"):
        load_estimator(bad)


def test_estimator_file_with_1e999_refused(trained, tmp_path, cli_error):
    est, table, _, _ = trained
    text = est.read_text()
    doc = json.loads(text)
    first = repr(doc["boosting"]["learners"][0]["intercept"])
    assert text.count(first) >= 1
    bad = _write(tmp_path / "bad.json", text.replace(f'"intercept": {first}', '"intercept": 1e999', 1))
    cli_error(["estimator", "apply", bad, table], "nan or infinite coefficient or intercept")


def test_estimator_file_nested_deeply_refused(tmp_path, cli_error):
    deep = _write(tmp_path / "deep.json", DEEP)
    cli_error(["estimator", "apply", deep, _write(tmp_path / "t.csv", "lang\n")], "nested too deeply")


def test_saved_estimator_applies_as_the_weighted_median_of_its_learners(trained, run_cli):
    # the independent computation: AdaBoost.R2's prediction is the weighted median of the learners'
    # linear predictions (Drucker 1997), recomputed here with numpy from the saved file
    est, table, fitted, frame = trained
    doc = json.loads(est.read_text())
    x = frame[list(COLUMNS)].to_numpy(dtype=float)
    learners = doc["boosting"]["learners"]
    weights = np.asarray(doc["boosting"]["estimator_weights"][:len(learners)])
    preds = np.stack([x @ np.asarray(m["coef"]) + m["intercept"] for m in learners], axis=1)
    order = np.argsort(preds, axis=1)
    cum = np.cumsum(weights[order], axis=1)
    median = np.argmax(cum >= 0.5 * cum[:, -1:], axis=1)
    expected = preds[np.arange(len(x)), order[np.arange(len(x)), median]]
    r = run_cli(["estimator", "apply", est, table, "--format", "json"])
    assert r.code == 0, r.err
    np.testing.assert_allclose([row["estimate"] for row in json.loads(r.out)["rows"]], expected, rtol=1e-12)
