"""The ``tealeaves index ...`` options follow docs/naming.md: ``-j/--n-jobs`` (``--workers`` its
deprecated spelling, one warning line), ``-o/--output`` (``--out`` likewise); the Python keyword
``workers=`` of :func:`tealeaves.index.dask_client` keeps working with a FutureWarning."""

from __future__ import annotations

import pytest

from tealeaves import _cli_args
from tealeaves.cli import build_parser


@pytest.mark.parametrize("command", [["index", "build", "a.jsonl"], ["index", "build-aligned", "t.jsonl"],
                                     ["build-aligned-reference", "t.jsonl"]])
@pytest.mark.parametrize("jobs, output", [(["-j", "3"], ["-o", "x"]), (["--n-jobs", "3"], ["--output", "x"])])
def test_n_jobs_and_output(command, jobs, output, capsys):
    args = build_parser().parse_args([*command, *output, *jobs])
    assert args.n_jobs == 3 and args.output == "x"
    assert "deprecated" not in capsys.readouterr().err


@pytest.mark.parametrize("command", [["index", "build", "a.jsonl"], ["index", "build-aligned", "t.jsonl"]])
def test_old_spellings_still_work_with_one_warning_each(command, capsys, monkeypatch):
    monkeypatch.setattr(_cli_args, "_WARNED", set())
    args = build_parser().parse_args([*command, "--out", "x", "--workers", "2"])
    assert args.n_jobs == 2 and args.output == "x"
    err = capsys.readouterr().err.splitlines()
    assert err == ["tealeaves: warning: --out is deprecated and will be removed; use --output",
                   "tealeaves: warning: --workers is deprecated and will be removed; use --n-jobs"]


def test_n_jobs_is_checked_by_its_declaration(capsys):
    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args(["index", "build", "a.jsonl", "-o", "x", "-j", "0"])
    assert exc.value.code == 2
    assert "--n-jobs must be a whole number >= 1" in capsys.readouterr().err


def test_help_shows_the_new_spellings_only(capsys):
    with pytest.raises(SystemExit):
        build_parser().parse_args(["index", "build", "--help"])
    out = capsys.readouterr().out
    assert "-j N_JOBS, --n-jobs N_JOBS" in out and "-o OUTPUT, --output OUTPUT" in out
    assert "--workers" not in out and "--out " not in out


def test_dask_client_keeps_the_workers_keyword():
    pytest.importorskip("distributed")
    from tealeaves.index import dask_client

    with pytest.warns(FutureWarning, match="'workers' is deprecated"):
        with dask_client(workers=1) as client:
            assert len(client.scheduler_info()["workers"]) == 1
