"""Saved models cannot crash the process, hang, or load as invalid models: a reduced run of
``benchmarks/model_fuzz.py`` (the full run: 1,000 mutations per artefact).

Seeded mutations of a polylingual model folder, an estimator file and every model-file format
``tealeaves.load_model`` reads (MALLET state, keys, weights, counts, doc-topics; gensim and tomotopy
saves; an OCTIS dict; tealeaves ``.npz``; topics files), each loaded in a worker subprocess (a crash is
an exit signal, a hang a timeout).  Every file is refused with a TealeavesError subclass, or loads as a
valid model of its format.  The harness itself is tested: it reports a crash, a hang and an invalid
loaded model.
"""

from __future__ import annotations

import collections
import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "model_fuzz", Path(__file__).resolve().parents[2] / "benchmarks" / "model_fuzz.py")
fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)

CI_MUTATIONS = 25  # per artefact


def _available() -> list[str]:
    wanted = list(fuzz.ARTEFACTS)
    for library in ("gensim", "tomotopy"):
        if importlib.util.find_spec(library) is None:
            wanted.remove(library)
    return wanted


@pytest.fixture(scope="module")
def bases():
    return fuzz.build_artefacts(_available())


def test_reduced_fuzz_run_refuses_or_loads_valid_models(bases):
    records = fuzz.fuzz(bases, CI_MUTATIONS, seed=0)
    assert not [r for r in records if r["outcome"] == "FAILED"], fuzz.summary(records)
    by_artefact = collections.defaultdict(collections.Counter)
    for r in records:
        by_artefact[r["artefact"]][r["outcome"]] += 1
    assert set(by_artefact) == set(bases)
    for artefact, counts in by_artefact.items():
        assert counts.total() == CI_MUTATIONS + 1, artefact
        assert counts["refused"] > 0, (artefact, counts)  # the mutations reach the checks
    controls = [r for r in records if r["kind"] == "original"]
    assert len(controls) == len(bases) and all(r["outcome"] == "loaded-identical" for r in controls)


def test_harness_reports_a_crash_a_hang_and_an_invalid_model(bases, tmp_path):
    worker = fuzz.Worker()
    try:
        folder = tmp_path / "m"
        fuzz._write(folder, bases["npz"], "model.npz")
        job = {"artefact": "npz", "folder": str(folder)}
        assert worker.request(job, 60)["outcome"] == "loaded-identical"
        crash = worker.request({**job, "fault": "crash"}, 60)
        assert crash["outcome"] == "FAILED" and "signal 11" in crash["detail"]
        hang = worker.request({**job, "fault": "hang"}, 2)
        assert hang["outcome"] == "FAILED" and "hang" in hang["detail"]
        assert worker.request(job, 60)["outcome"] == "loaded-identical"  # a new worker after each
    finally:
        worker.close()
    import numpy as np

    with pytest.raises(fuzz.Invalid, match="rows do not sum to 1"):
        fuzz._check_probabilities(np.array([[0.5, 0.4]]), "phi")
    with pytest.raises(fuzz.Invalid, match="not finite"):
        fuzz._check_theta(np.array([[np.nan, 1.0]]), "theta")
