"""``-o/--output`` of the commands that print a result, and files one command writes read by the next.

Run through the command line in subprocesses on a slice of Reuters-21578 (real stories, topics of a
real LDA fit): what ``-o FILE`` writes is byte for byte what ``--format F`` prints, parses to the same
numbers, and ``tealeaves human correlate`` reads the JSON and CSV of ``tealeaves coherence`` and the
JSON of ``tealeaves report`` to the very correlations computed by hand (numpy) from the same scores.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.xdist_group("reuters")

SRC = Path(__file__).resolve().parent.parent / "src"


def tealeaves(*argv, cwd: Path) -> subprocess.CompletedProcess:
    """Run ``python -m tealeaves ARGV`` in a subprocess; assert it succeeded without a traceback."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    env.pop("TEALEAVES_DEBUG", None)
    run = subprocess.run([sys.executable, "-m", "tealeaves", *map(str, argv)], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=600)
    assert "Traceback" not in run.stderr, run.stderr
    assert run.returncode == 0, run.stderr
    return run


@pytest.fixture(scope="module")
def work(reuters, tmp_path_factory):
    """A folder with 300 Reuters training stories and 100 test stories (token lines), their index, a
    K=8 LDA model fitted on them (.npz) and made-up human scores for its topics (seeded)."""
    from tealeaves.models.sklearn_lda import SklearnLDA

    folder = tmp_path_factory.mktemp("outputs")
    train, test, _ = reuters
    lines = {"train.txt": train.token_lists()[:300], "test.txt": test.token_lists()[:100]}
    for name, docs in lines.items():
        (folder / name).write_text("".join(" ".join(d) + "\n" for d in docs), encoding="utf-8")
    tealeaves("index", "build", "train.txt", "-o", "ref.tlx", cwd=folder)
    from tealeaves.corpus.readers import read_corpus

    SklearnLDA(n_components=8, random_state=0, max_iter=20).fit(read_corpus(folder / "train.txt")).save(
        folder / "model.npz")
    rng = np.random.default_rng(24)
    human = {str(k): float(v) for k, v in enumerate(rng.random(8))}
    (folder / "human.json").write_text(json.dumps({"topics": [{"topic": k, "model_precision": v}
                                                              for k, v in human.items()]}))
    return folder


def _csv_rows(text: str, sep: str = ",") -> list[dict]:
    return list(csv.DictReader(io.StringIO(text), delimiter=sep))


COHERENCE = ("coherence", "--reference", "ref.tlx", "--topics", "model.npz", "--measure", "npmi")


@pytest.mark.parametrize("fmt,suffix", [("json", ".json"), ("csv", ".csv"), ("tsv", ".tsv"),
                                        ("text", ".txt")])
def test_coherence_output_file_equals_what_is_printed(work, fmt, suffix):
    printed = tealeaves(*COHERENCE, "--format", fmt, cwd=work).stdout
    out = work / f"coherence-{fmt}{suffix}"
    run = tealeaves(*COHERENCE, "-o", out, cwd=work)
    assert run.stdout == ""  # with -o the result goes to the file only
    assert out.read_text(encoding="utf-8") == printed
    assert not [p for p in work.iterdir() if p.name.endswith(".tmp")]  # no temporary file left
    if fmt in ("csv", "tsv"):
        data = json.loads(tealeaves(*COHERENCE, "--format", "json", cwd=work).stdout)
        rows = _csv_rows(printed, "," if fmt == "csv" else "\t")
        assert [int(r["topic"]) for r in rows] == list(range(len(data["topics"])))
        assert [float(r["npmi"]) for r in rows] == [t["score"] for t in data["topics"]]  # every digit kept
        assert [r["words"].split() for r in rows] == [t["words"] for t in data["topics"]]


def _correlate(work, measures: str, *extra) -> list[dict]:
    run = tealeaves("human", "correlate", "human.json", "--measure-scores", measures, "--n-boot", "200",
                    "--format", "json", *extra, cwd=work)
    return json.loads(run.stdout)


def test_coherence_json_and_csv_feed_human_correlate(work):
    tealeaves(*COHERENCE, "-o", "c.json", cwd=work)
    tealeaves(*COHERENCE, "-o", "c.csv", cwd=work)
    data = json.loads((work / "c.json").read_text())
    # the table the reader always accepted, written by hand from the JSON: topic,npmi
    (work / "hand.csv").write_text("topic,npmi\n" + "".join(f"{i},{t['score']!r}\n"
                                                             for i, t in enumerate(data["topics"])))
    from_json, from_csv, by_hand = (_correlate(work, f) for f in ("c.json", "c.csv", "hand.csv"))
    assert from_json == from_csv == by_hand
    (result,) = from_json
    human = json.loads((work / "human.json").read_text())["topics"]
    x = np.array([t["model_precision"] for t in human])
    y = np.array([t["score"] for t in data["topics"]])
    assert result["measure"] == "npmi" and result["n_topics"] == 8
    assert result["pearson"]["estimate"] == pytest.approx(np.corrcoef(x, y)[0, 1], rel=1e-12)


def test_report_json_feeds_human_correlate(work):
    tealeaves("sweep", "train.txt", "--test", "test.txt", "-k", "3", "4", "--seeds", "1", "-o", "s.sqlite",
              cwd=work)
    tealeaves("report", "s.sqlite", "--format", "json", "-o", "report.json", cwd=work)
    report = json.loads((work / "report.json").read_text())
    ids = [f"{t['model']}/{t['topic']}" for t in report["topics"]]  # several models: MODEL/TOPIC
    rng = np.random.default_rng(7)
    human = dict(zip(ids, rng.random(len(ids)).tolist()))
    (work / "store-human.json").write_text(json.dumps({"topics": [{"topic": k, "model_precision": v}
                                                                  for k, v in human.items()]}))
    run = tealeaves("human", "correlate", "store-human.json", "--measure-scores", "report.json", "--n-boot",
                    "100", "--format", "json", cwd=work)
    out = {o["measure"]: o for o in json.loads(run.stdout)}
    assert not {"k", "seed"} & set(out)  # a model's K and seed describe a topic; they are no measure
    from tealeaves.sweep.results import load_results

    topics = load_results(work / "s.sqlite").topics  # the store itself, not the report
    npmi = {f"{m}/{t}": v for m, t, v in zip(topics["model"], topics["topic"], topics["npmi"], strict=True)}
    x = np.array([human[k] for k in ids])
    y = np.array([npmi[k] for k in ids])
    assert out["npmi"]["n_topics"] == 7
    assert out["npmi"]["pearson"]["estimate"] == pytest.approx(np.corrcoef(x, y)[0, 1], rel=1e-12)
    # the report's models feed `human models --per-model`: each model's held-out perplexity, as stored
    (work / "keyed-human.json").write_text(json.dumps({"topic_key": ["model", "topic"], "topics": [
        {"topic": k, "model_precision": v} for k, v in human.items()]}))
    run = tealeaves("human", "models", "keyed-human.json", "--measure-scores", "report.json", "--measure",
                    "completion_perplexity", "--per-model", "--n-boot", "100", "--format", "json", cwd=work)
    models = load_results(work / "s.sqlite").models
    stored = dict(zip(models["name"], models["completion_perplexity"], strict=True))
    got = {r["label"]: r["measure"]["mean"] for r in json.loads(run.stdout)["models"]}
    assert got == stored
    means = {m: np.mean([v for k, v in human.items() if k.startswith(m + "/")]) for m in stored}
    assert {r["label"]: r["human"]["mean"] for r in json.loads(run.stdout)["models"]} == pytest.approx(means)


def test_perplexity_output_reads_back(work):
    argv = ("perplexity", "model.npz", "test.txt", "--tokenized", "--method", "completion")
    printed = json.loads(tealeaves(*argv, "--format", "json", cwd=work).stdout)
    tealeaves(*argv, "-o", "p.json", cwd=work)
    tealeaves(*argv, "-o", "p.csv", cwd=work)
    assert json.loads((work / "p.json").read_text()) == printed
    (row,) = _csv_rows((work / "p.csv").read_text())
    assert list(row) == list(printed)
    assert float(row["perplexity"]) == printed["perplexity"]
    assert int(row["n_heldout_words"]) == printed["n_heldout_words"]
    words = printed["n_heldout_words"]
    assert printed["perplexity"] == pytest.approx(np.exp(-printed["log_likelihood"] / words))


def test_compare_output_equals_printed(work):
    if not (work / "s.sqlite").exists():
        tealeaves("sweep", "train.txt", "--test", "test.txt", "-k", "3", "4", "--seeds", "1", "-o",
                  "s.sqlite", cwd=work)
    argv = ("compare", "s.sqlite", "--models", "sklearn-K3-s0", "sklearn-K4-s0", "--n-boot", "200")
    data = json.loads(tealeaves(*argv, "--format", "json", cwd=work).stdout)
    printed = tealeaves(*argv, "--format", "tsv", cwd=work).stdout
    tealeaves(*argv, "-o", "d.tsv", cwd=work)
    assert (work / "d.tsv").read_text() == printed
    rows = {r["quantity"]: r for r in _csv_rows(printed, "\t")}
    part = data["loglik_per_word"]
    got = rows["loglik per held-out word"]
    assert (float(got["A - B"]), float(got["low"]), float(got["high"])) == (part["estimate"], part["low"],
                                                                             part["high"])


@pytest.mark.parametrize("argv", [("reproduce", "five-term", "--n-restarts", "2"), ("data", "list")])
def test_table_commands_write_what_they_print(tmp_path, argv):
    data = json.loads(tealeaves(*argv, "--format", "json", cwd=tmp_path).stdout)
    for fmt in ("csv", "json", "text"):
        printed = tealeaves(*argv, "--format", fmt, cwd=tmp_path).stdout
        assert tealeaves(*argv, "-o", f"out.{'txt' if fmt == 'text' else fmt}", cwd=tmp_path).stdout == ""
        assert (tmp_path / f"out.{'txt' if fmt == 'text' else fmt}").read_text(encoding="utf-8") == printed
    rows = _csv_rows((tmp_path / "out.csv").read_text(encoding="utf-8"))
    assert len(rows) == len(data)
    if argv[0] == "reproduce":  # perplexity = exp(-log-likelihood / 10 test tokens); CSV keeps every digit
        assert [float(r["perplexity"]) for r in rows] == [r["perplexity"] for r in data]
        assert [float(r["perplexity"]) for r in rows] == pytest.approx(
            [np.exp(-float(r["log_likelihood"]) / 10) for r in rows], rel=1e-12)


def test_human_score_with_output_writes_the_file_and_prints_one_line(tmp_path, run_cli):
    """`human score -o FILE` writes the scores JSON and prints one confirmation line (as every command
    that writes a file), not the text report; `--format json` prints the JSON it wrote."""
    from tealeaves.human.items import rating_item
    from tealeaves.human.study import Study

    Study(items=[rating_item(k, [f"w{k}{j}" for j in range(4)]) for k in range(3)]).save(tmp_path / "s.json")
    rows = [f"r-{k},a{a},{(k + a) % 3}" for k in range(3) for a in range(4)]
    (tmp_path / "r.csv").write_text("item_id,annotator,response\n" + "\n".join(rows) + "\n")
    argv = ["human", "score", tmp_path / "r.csv", "--study", tmp_path / "s.json"]
    written = run_cli([*argv, "-o", tmp_path / "sc.json"])
    assert written.code == 0 and written.out.splitlines() == [
        f"wrote the scores of 3 topic(s) from 12 judgments to {tmp_path / 'sc.json'}"]
    printed = run_cli([*argv, "--format", "json"])
    assert json.loads((tmp_path / "sc.json").read_text()) == json.loads(printed.out)
    both = run_cli([*argv, "-o", tmp_path / "sc2.json", "--format", "json"])
    assert json.loads(both.out) == json.loads((tmp_path / "sc2.json").read_text()) == json.loads(printed.out)
