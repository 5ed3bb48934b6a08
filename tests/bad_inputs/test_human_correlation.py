"""``tealeaves human correlate`` and :func:`tealeaves.human.correlate` on scores that cannot support what
is asked: a score that is not a number, a NaN per-response value, and a two-level bootstrap over topics
holding one response each (no estimate of the annotator noise).

Each case asserts a clean error (the error class; through the CLI, the exit code and one
``tealeaves: error:`` line) or the documented value.  A comment "before:" says what the case did before
its fix."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tealeaves.errors import CorrelationError
from tealeaves.human import correlate

HUMAN = {str(k): v for k, v in enumerate([0.1, 0.5, 0.9, 0.3, 0.7])}
MEASURE = {str(k): v for k, v in enumerate([0.2, 0.4, 0.8, 0.1, 0.9])}


@pytest.mark.parametrize("human, measure, fragment", [
    ({**HUMAN, "0": "x"}, MEASURE, "the human score of topic '0' is 'x', not a number"),  # before: ValueError
    (HUMAN, {**MEASURE, "2": [0.3]}, "the measure score of topic '2' is [0.3], not a number"),
    ({**HUMAN, "1": True}, MEASURE, "the human score of topic '1' is True, not a number"),
    (HUMAN, [0.1, 0.2], "the measure scores must be a mapping"),
])
def test_correlate_refuses_a_score_that_is_not_a_number(human, measure, fragment):
    with pytest.raises(CorrelationError, match=fragment.replace("[", r"\[").replace("]", r"\]")):
        correlate(human, measure, n_boot=50)


def test_correlate_reads_numbers_written_as_text():
    as_text = {k: str(v) for k, v in HUMAN.items()}
    assert correlate(as_text, MEASURE, n_boot=50) == correlate(HUMAN, MEASURE, n_boot=50)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "x", None])
@pytest.mark.parametrize("bootstrap", ["annotators", "both"])
def test_correlate_refuses_a_non_finite_response(bad, bootstrap):
    # before: bootstrap="both" with a NaN response returned NaN intervals
    responses = {k: [v, v + 0.1] for k, v in HUMAN.items()}
    responses["3"] = [0.3, bad]
    with pytest.raises(CorrelationError, match="per-response values of human for topic '3' must be finite"):
        correlate(HUMAN, MEASURE, bootstrap=bootstrap, responses=responses, n_boot=50)


def test_true_score_with_one_response_per_topic_is_undefined_not_reliable():
    # before: reliability 1.0 (no within-topic variance to estimate the noise from was read as no noise)
    single = {k: [v] for k, v in HUMAN.items()}
    out = correlate(HUMAN, MEASURE, bootstrap="both", responses=single, n_boot=100)
    true = out["pearson"]["true_score"]
    assert true["reliability"] is None and "single response" in true["undefined"]
    assert "estimate" not in true
    # the observed correlation itself is still the plain Pearson r of the five pairs
    x, y = np.array(list(HUMAN.values())), np.array(list(MEASURE.values()))
    assert out["pearson"]["estimate"] == pytest.approx(np.corrcoef(x, y)[0, 1], abs=1e-12)


def test_true_score_from_the_cli_with_one_annotator_is_undefined(tmp_path, run_cli):
    from tealeaves.human.items import rating_item
    from tealeaves.human.study import Study

    study = Study(items=[rating_item(k, [f"w{k}{j}" for j in range(4)]) for k in range(6)])
    study.save(tmp_path / "s.json")
    rows = ["item_id,annotator,response"] + [f"r-{k},a0,{k % 3}" for k in range(6)]
    (tmp_path / "r.csv").write_text("\n".join(rows) + "\n")
    assert run_cli(["human", "score", tmp_path / "r.csv", "--study", tmp_path / "s.json",
                    "-o", tmp_path / "sc.json"]).code == 0
    (tmp_path / "m.csv").write_text("topic,npmi\n" + "".join(f"{k},{(k * 7) % 5 / 5}\n" for k in range(6)))
    res = run_cli(["human", "correlate", tmp_path / "sc.json", "--measure-scores", tmp_path / "m.csv",
                   "--bootstrap", "both", "--n-boot", "100", "--format", "json"])
    assert res.code == 0, res.err
    true = json.loads(res.out)[0]["pearson"]["true_score"]
    assert true["reliability"] is None and "single response" in true["undefined"]


@pytest.mark.parametrize("bad", ["NaN", "null", '"x"', "true", "1e999"])
def test_correlate_refuses_a_damaged_response_in_a_scores_file(tmp_path, run_cli, bad):
    # before: the CLI dropped a NaN per-response value silently and bootstrapped the rest
    from tealeaves.human.items import rating_item
    from tealeaves.human.study import Study

    study = Study(items=[rating_item(k, [f"w{k}{j}" for j in range(4)]) for k in range(6)])
    study.save(tmp_path / "s.json")
    rows = ["item_id,annotator,response"] + [f"r-{k},a{a},{(k + a) % 3}" for k in range(6) for a in range(3)]
    (tmp_path / "r.csv").write_text("\n".join(rows) + "\n")
    assert run_cli(["human", "score", tmp_path / "r.csv", "--study", tmp_path / "s.json",
                    "-o", tmp_path / "sc.json"]).code == 0
    text = (tmp_path / "sc.json").read_text()
    scores = json.loads(text)
    first = next(iter(scores["responses"]["mean_rating"]))
    values = scores["responses"]["mean_rating"][first]
    assert len(values) == 3 and all(isinstance(v, (int, float)) for v in values)
    scores["responses"]["mean_rating"][first][1] = "BAD"
    (tmp_path / "sc.json").write_text(json.dumps(scores).replace('"BAD"', bad))
    (tmp_path / "m.csv").write_text("topic,npmi\n" + "".join(f"{k},{(k * 7) % 5 / 5}\n" for k in range(6)))
    res = run_cli(["human", "correlate", tmp_path / "sc.json", "--measure-scores", tmp_path / "m.csv",
                   "--bootstrap", "both", "--n-boot", "50", "--format", "json"])
    assert res.code == 1 and res.out == ""
    assert res.err.startswith("tealeaves: error: ") and "not a finite number" in res.err
    assert f"topic {first!r}" in res.err and "Traceback" not in res.err
