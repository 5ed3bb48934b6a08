"""A results store cannot crash, hang or mislead its readers: a reduced run of ``benchmarks/store_fuzz.py``.

Seeded mutations of a real store (a sweep over Reuters-21578 training stories), each read by
``load_results``, ``tealeaves report`` and ``tealeaves compare`` in a worker subprocess (a crash
is an exit signal, a hang a timeout): every store is refused with a named error by all three, or
loads and gives the numbers stored in the file.  The harness itself is tested: it must report a
crash, a hang, and a loaded store whose numbers differ from the file's.
"""

from __future__ import annotations

import collections
import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location(
    "store_fuzz", Path(__file__).resolve().parent.parent / "benchmarks" / "store_fuzz.py")
fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)

CI_DOCS = 150
CI_MUTATIONS = 45  # three of each kind


@pytest.fixture(scope="module")
def base(reuters):
    return fuzz.base_store(reuters[0], CI_DOCS)


def test_reduced_fuzz_run_refuses_or_gives_the_stored_numbers(base):
    records = fuzz.fuzz(base, CI_MUTATIONS, seed=0)
    assert not [r for r in records if r["outcome"] == "FAILED"], fuzz.summary(records)
    by_kind = collections.defaultdict(collections.Counter)
    for r in records:
        by_kind[r["kind"]][r["outcome"]] += 1
    assert set(by_kind) == {*fuzz.MUTATIONS, "original"}
    assert by_kind["original"]["loaded-correct"] == 1
    assert by_kind["valid_edit"]["loaded-correct"] == by_kind["json_value"]["loaded-correct"] == 3


def test_harness_reports_a_crash_a_hang_and_a_wrong_number(base, tmp_path, monkeypatch):
    path = tmp_path / "s.sqlite"
    path.write_bytes(base)
    worker = fuzz.Worker()
    try:
        assert worker.run(path, "original", 60)[0] == "loaded-correct"
        outcome, detail = worker.run(path, "original", 60, fault="crash")
        assert outcome == "FAILED" and "signal" in detail
        outcome, detail = worker.run(path, "original", 2, fault="hang")
        assert outcome == "FAILED" and "hang" in detail
        assert worker.run(path, "original", 60)[0] == "loaded-correct"  # restarted after both
    finally:
        worker.close()
    # a reader that returned another number than the file holds is a failure
    from tealeaves.sweep import results as results_module

    load = results_module.load_results

    def shifted(p):
        res = load(p)
        res._topic_word[fuzz.A] = res._topic_word[fuzz.A][::-1]
        return res

    monkeypatch.setattr("tealeaves.sweep.load_results", shifted)
    outcome, detail = fuzz.check_store(str(path), "original")
    assert outcome == "FAILED" and "a stored array differs" in detail
