"""``-o/--output`` of the commands that print a result (``coherence``, ``perplexity``, ``cnpmi``,
``compare``, ``human correlate|compare|models``) and the topic-table reader given what other commands
write: a missing folder, a folder, an unwritable place, an existing file, an extension that contradicts
``--format`` or names no format; a truncated JSON, NaN scores, a report of a store without scores.

The command line is run in a subprocess: exit status, one ``tealeaves: error:`` line, no traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DOCS, write_text, write_topics
from tealeaves.errors import CorrelationError, OutputError, ParameterError

SRC = Path(__file__).resolve().parents[2] / "src"


def tealeaves(*argv, cwd: Path) -> subprocess.CompletedProcess:
    """``python -m tealeaves ARGV`` in a subprocess (no traceback, whatever the outcome)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    env.pop("TEALEAVES_DEBUG", None)
    run = subprocess.run([sys.executable, "-m", "tealeaves", *map(str, argv)], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=300)
    assert "Traceback" not in run.stderr, run.stderr
    return run


def refused(run: subprocess.CompletedProcess, fragment: str, code: int = 1) -> None:
    """One ``tealeaves: error:`` line holding ``fragment``, exit status ``code``, nothing printed."""
    assert run.returncode == code, run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("tealeaves: error: "), run.stderr
    assert fragment in lines[0], lines[0]
    assert run.stdout == ""


@pytest.fixture
def coherence(tmp_path):
    """``coherence`` of two topics over the 32-document corpus, with the output options appended."""
    write_text(tmp_path / "docs.txt", "".join(d + "\n" for d in DOCS))
    write_topics(tmp_path)

    def run(*argv):
        return tealeaves("coherence", "--reference", "docs.txt", "--topics", "topics.txt", *argv,
                         cwd=tmp_path)

    return run


@pytest.mark.parametrize("argv, fragment", [
    (["-o", "missing/scores.json"], "folder 'missing' does not exist"),
    (["-o", "."], "is a folder"),
    (["-o", "scores.xlsx"], "cannot tell the output format from the extension .xlsx"),
    (["-o", "scores"], "cannot tell the output format from the extension (none)"),
    (["-o", "scores.csv", "--format", "json"], "the extension .csv means csv, but --format is json"),
    (["-o", "scores.json", "--format", "text"], "the extension .json means json, but --format is text"),
    (["-o", "scores.csv", "--pairs", "0"], "--pairs prints word-pair matrices in the text report; csv"),
])
def test_coherence_output_refused(coherence, tmp_path, argv, fragment):
    refused(coherence(*argv), fragment)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".scores")]  # no temporary file left


def test_output_in_an_unwritable_folder_refused(coherence, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):  # root writes anywhere: use a folder the kernel refuses
            locked = Path("/sys")
        refused(coherence("-o", locked / "scores.json"), "Permission denied")
    finally:
        (tmp_path / "locked").chmod(0o700)


def test_existing_output_is_replaced_whole(coherence, tmp_path):
    out = write_text(tmp_path / "scores.csv", "old content that is much longer than the new table\n" * 50)
    run = coherence("-o", "scores.csv")
    assert run.returncode == 0 and run.stdout == "", run.stderr
    assert out.read_text() == coherence("--format", "csv").stdout  # no trace of the old file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs.txt", "scores.csv", "topics.txt"]


def test_unknown_extension_is_written_with_an_explicit_format(coherence, tmp_path):
    # an extension that names no format is no contradiction once --format says which
    assert coherence("-o", "scores.out", "--format", "json").returncode == 0
    printed = coherence("--format", "json").stdout
    assert json.loads((tmp_path / "scores.out").read_text()) == json.loads(printed)


@pytest.mark.parametrize("command", [
    ["perplexity", "model.npz", "test.txt", "--tokenized"],
    ["cnpmi", "topics.json"],
    ["compare", "s.sqlite", "--models", "a", "b"],
    ["human", "correlate", "h.csv", "--measure-scores", "m.csv"],
])
def test_every_command_checks_the_output_before_reading_its_inputs(tmp_path, command):
    # the inputs do not exist: the output's problem is reported first, before any work
    refused(tealeaves(*command, "-o", "x.csv", "--format", "json", cwd=tmp_path),
            "the extension .csv means csv")
    refused(tealeaves(*command, "-o", "nowhere/x.json", cwd=tmp_path), "folder 'nowhere' does not exist")


# -- the reader of topic tables, given what other commands write ---------------------------------------------
HUMAN = "topic,model_precision\n0,0.9\n1,0.5\n2,0.7\n3,0.2\n4,0.4\n"


def _coherence_json(scores) -> str:
    return json.dumps({"signature": "npmi|...", "measure": "npmi", "mean": None, "n_unscored": 0,
                       "topics": [{"words": ["a", "b"], "score": s, "missing": []} for s in scores]})


def test_truncated_coherence_json(tmp_path):
    from tealeaves.human.correlation import read_topic_table

    path = write_text(tmp_path / "c.json", _coherence_json([0.1, 0.2, 0.3])[:-20])
    with pytest.raises(CorrelationError, match="cannot read"):
        read_topic_table(path)
    write_text(tmp_path / "h.csv", HUMAN)
    refused(tealeaves("human", "correlate", "h.csv", "--measure-scores", "c.json", cwd=tmp_path),
            "cannot read")


def test_nan_scores_are_left_out_and_counted(tmp_path):
    """A NaN literal (not valid JSON, written by other tools) is no score: the topic is left out of that
    measure and counted as invalid, the correlation is that of the other topics."""
    import numpy as np

    text = _coherence_json([0.1, 0.4, 0.3, 0.2, 0.5]).replace("0.4", "NaN").replace("0.2", "null")
    write_text(tmp_path / "c.json", text)
    write_text(tmp_path / "h.csv", HUMAN)
    run = tealeaves("human", "correlate", "h.csv", "--measure-scores", "c.json", "--format", "json",
                    cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    (out,) = json.loads(run.stdout)
    assert out["n_topics"] == 3 and out["dropped"]["measure"] == {"missing": 1, "invalid": 1}
    x, y = [0.9, 0.7, 0.4], [0.1, 0.3, 0.5]  # topics 0, 2 and 4
    assert out["pearson"]["estimate"] == pytest.approx(np.corrcoef(x, y)[0, 1])


def test_report_of_a_store_without_scores(tmp_path):
    from tealeaves.human.tables import load_tables

    empty = {"path": "s.sqlite", "sweep": {}, "models": [], "topics": []}
    unscored = {"path": "s.sqlite", "sweep": {}, "models": [{"name": "m"}],
                "topics": [{"model": "m", "k": 5, "seed": 0, "topic": t, "top_words": ["a", "b"],
                            "npmi": None, "flags": []} for t in range(5)]}
    write_text(tmp_path / "h.csv", HUMAN)
    write_text(tmp_path / "empty.json", json.dumps(empty))
    write_text(tmp_path / "unscored.json", json.dumps(unscored))
    with pytest.raises(CorrelationError, match="holds no topic"):
        load_tables(tmp_path / "h.csv", tmp_path / "empty.json")
    with pytest.raises(CorrelationError, match="has no measure column with a number"):
        load_tables(tmp_path / "h.csv", tmp_path / "unscored.json")  # k and seed are not measures
    refused(tealeaves("human", "correlate", "h.csv", "--measure-scores", "empty.json", cwd=tmp_path),
            "holds no topic")
    refused(tealeaves("human", "correlate", "h.csv", "--measure-scores", "unscored.json", cwd=tmp_path),
            "has no measure column with a number")


# -- the API ------------------------------------------------------------------------------------------------
def test_api_errors(tmp_path):
    import argparse

    from tealeaves._cli_args import result_format
    from tealeaves._output import Result

    with pytest.raises(ParameterError, match="means csv, but --format is json"):
        result_format(argparse.Namespace(format="json", output=str(tmp_path / "x.csv")))
    with pytest.raises(OutputError, match="is a folder"):
        result_format(argparse.Namespace(format=None, output=str(tmp_path)))
    with pytest.raises(OutputError, match="non-finite number"):
        Result({"score": float("nan")}, [{"score": float("nan")}]).render("csv")
    with pytest.raises(OutputError, match="has no table to write as csv"):
        Result({"a": 1}).render("csv")
    with pytest.raises(OutputError, match="does not exist"):
        Result({"a": 1}).emit("json", tmp_path / "no" / "x.json")
