"""Language models as annotators (`tealeaves human ask`): a local chat-completions server answers from a
deterministic rule on a small reference built with the index builder (the intruder is the option with the
lowest mean NPMI to the others; ratings by thresholds on the mean NPMI of the words), and the pipeline's
numbers are checked against the rule recomputed by hand (plain Python NPMI over the documents): the model
precision of `human score`, the correlation of `human correlate` with NPMI, a rerun that sends nothing,
samples as separate annotators with agreement and the annotator bootstrap, the metadata in the database and
the score's signature, and the API key in no file written."""

from __future__ import annotations

import json
import math
import random
import re
from collections import Counter

import numpy as np
import pytest

from conftest import ChatServer
from tealeaves.cli import main as cli_main
from tealeaves.errors import ParameterError
from tealeaves.human import Study, read_results, score
from tealeaves.human.items import rating_item
from tealeaves.human.llm import prompts as pr
from tealeaves.human.llm.ask import ask
from tealeaves.human.llm.meta import annotator_metadata

THEMES = [["cat", "dog", "mouse", "pet", "fur", "tail", "whisker", "paw"],
          ["sun", "moon", "star", "sky", "orbit", "planet", "comet", "galaxy"],
          ["bread", "cheese", "butter", "milk", "flour", "oven", "bake", "dough"],
          ["goal", "match", "team", "score", "player", "coach", "league", "stadium"],
          ["rain", "snow", "wind", "storm", "cloud", "thunder", "frost", "fog"]]
A, B, C, D, E = THEMES
#: Topic -> (its words, the intruder): pure themes, partly mixed and fully mixed topics.
TOPICS = {0: (A[:5], B[6]), 1: (B[:5], C[6]), 2: (C[:5], D[6]), 3: (A[:3] + B[:2], D[7]),
          4: (C[:2] + D[:2] + E[:1], A[7]), 5: (E[:5], A[6]), 6: ([A[0], B[0], C[0], D[0], E[0]], B[1]),
          7: (D[:4] + [A[5]], E[7])}
#: The topic whose word-intrusion item the server answers with a sentence (unusable).
CHATTY = 7
LOW, HIGH = 0.0, 0.3  # rating thresholds on the mean pairwise NPMI: 1 below LOW, 3 above HIGH, else 2
KEY = "sk-test-do-not-write-4c1f"


def _docs() -> list[list[str]]:
    rng = random.Random(0)
    every = [w for t in THEMES for w in t]
    docs = []
    for i in range(300):
        words = rng.sample(THEMES[i % 5], 4)
        if rng.random() < 0.3:
            words.append(rng.choice(every))
        docs.append(words)
    return docs


DOCS = _docs()
SETS = [set(d) for d in DOCS]


def npmi(a: str, b: str) -> float:
    """Document NPMI of ``a`` and ``b`` by hand, with the reference's convention for pairs that never
    co-occur (1e-12 added to the joint probability: ``tealeaves.human.automatic``)."""
    n = len(SETS)
    pa, pb = sum(a in d for d in SETS) / n, sum(b in d for d in SETS) / n
    pab = sum(a in d and b in d for d in SETS) / n + 1e-12
    return math.log(pab / (pa * pb)) / -math.log(pab)


def mean_npmi(word: str, others) -> float:
    """Mean NPMI of ``word`` with ``others`` over the documents (plain Python)."""
    others = [o for o in others if o != word]
    return sum(npmi(word, o) for o in others) / len(others)


def topic_npmi(words) -> float:
    """Mean NPMI over the pairs of ``words``."""
    pairs = [(a, b) for i, a in enumerate(words) for b in words[i + 1:]]
    return sum(npmi(a, b) for a, b in pairs) / len(pairs)


def rule_rating(value: float, sample: int) -> int:
    """The rule's rating 1-3 of a topic of mean NPMI ``value``; sample 1 is one point kinder (up to 3)."""
    base = 1 + (value > LOW) + (value > HIGH)
    return min(3, base + 1) if sample == 1 else base


def _study() -> Study:
    items = []
    for k, (words, intruder) in TOPICS.items():
        options = words + [intruder]
        random.Random(k).shuffle(options)
        items.append({"id": f"wi-{k}", "task": "word_intrusion", "topic": k, "options": options,
                      "answer": intruder, "top_words": list(words), "check": False})
        items.append(rating_item(k, words))
    items.append({"id": "check-wi-0", "task": "word_intrusion", "options": ["cat", "dog", "pet", "galaxy"],
                  "answer": "galaxy", "expected": ["galaxy"], "check": True,
                  "top_words": ["cat", "dog", "pet"]})
    return Study(items=items, name="toy-llm", seed=7, settings={})


class Rule:
    """The server's responder: reads the prompt, answers by the rule from the reference index."""

    def __init__(self, reference):
        self.reference = reference

    def __call__(self, body: dict) -> str:
        from tealeaves.human.automatic import item_features

        system, user = body["messages"][0]["content"], body["messages"][1]["content"]
        if system == pr.PROMPTS["stammbach2023-intrusion-v1"].system:
            words = re.findall(r'"([^"]+)"', user)
            if set(words) == set(TOPICS[CHATTY][0] + [TOPICS[CHATTY][1]]):
                return "Sure! The word that does not belong is " + words[0]
            npmi = item_features(self.reference, words)[:, 1] / (len(words) - 1)
            return words[int(np.argmin(npmi))] + ("." if body.get("seed") == 2 else "")
        words = user.split(", ")
        npmi = item_features(self.reference, words)[:, 1]
        value = float(npmi.sum() / (len(words) * (len(words) - 1)))
        return f" {rule_rating(value, body.get('seed'))}\n"


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The reference index of :data:`DOCS`, built by ``tealeaves index build``."""
    from tealeaves.coherence.measure import as_reference

    folder = tmp_path_factory.mktemp("ref")
    (folder / "docs.txt").write_text("".join(" ".join(d) + "\n" for d in DOCS), encoding="utf-8")
    assert cli_main(["index", "build", str(folder / "docs.txt"), "-o", str(folder / "ref.tlx")]) == 0
    return as_reference(str(folder / "ref.tlx"))


def _expected_precision() -> dict[str, float]:
    """Per topic, the share of samples whose rule pick is the intruder (the chatty topic is unusable)."""
    out = {}
    for k, (words, intruder) in TOPICS.items():
        if k == CHATTY:
            continue
        options = words + [intruder]
        pick = min(options, key=lambda w: mean_npmi(w, options))
        out[str(k)] = float(pick == intruder)
    return out


def _expected_ratings(n_samples: int) -> dict[str, float]:
    """Per topic, the mean rating on the study's 0-2 scale (the prompt's 1-3, minus one) over samples."""
    return {str(k): float(np.mean([rule_rating(topic_npmi(words), s) - 1 for s in range(n_samples)]))
            for k, (words, _) in TOPICS.items()}


def test_ask_stores_judgments_the_rule_implies_and_a_rerun_sends_nothing(tmp_path, reference, monkeypatch):
    monkeypatch.setenv("TEALEAVES_TEST_KEY", KEY)
    study = _study()
    store = tmp_path / "judgments.sqlite"
    with ChatServer(Rule(reference)) as server:
        report = ask(study, endpoint=server.url, model="toy-model", output=store, n_samples=3,
                     temperature=0.7, api_key_env="TEALEAVES_TEST_KEY")
        n_sent = len(server.requests)
        assert n_sent == 3 * 2 * len(TOPICS)  # the check item is not asked
        assert all(h.get("Authorization") == f"Bearer {KEY}" for h in server.headers)
        again = ask(study, endpoint=server.url, model="toy-model", output=store, n_samples=3,
                    temperature=0.7, api_key_env="TEALEAVES_TEST_KEY")
        assert len(server.requests) == n_sent  # a rerun sends no request
    host = server.url.split("//")[1].split("/")[0]
    c = report.counts
    assert (c["requests"], c["asked"], c["cached"], c["failed"], c["not_asked"]) == (48, 48, 0, 0, 0)
    assert c["unusable"] == 3 and c["usable"] == 45 and c["stored"] == 45
    assert {u["reason"] for u in report.unusable} == {"not_an_option"}
    assert all(u["raw"].startswith("Sure!") and u["item_id"] == f"wi-{CHATTY}" for u in report.unusable)
    assert report.skipped == {"check": 1}
    assert report.annotators == sorted(f"llm:toy-model@{host}/{v}/t0.7/s{s}" for s in range(3)
                                       for v in ("stammbach2023-intrusion-v1", "stammbach2023-rating-v1"))
    a2 = again.counts
    assert (a2["asked"], a2["cached"], a2["stored"], a2["duplicate"]) == (0, 48, 0, 45)
    # the metadata of every annotator, in the database
    meta = annotator_metadata(store)
    one = meta[f"llm:toy-model@{host}/stammbach2023-rating-v1/t0.7/s1"]
    assert (one["model"], one["endpoint_host"], one["temperature"], one["sample"], one["seed"]) == \
        ("toy-model", host, 0.7, 1, 1)
    assert one["prompt_version"] == "stammbach2023-rating-v1" and one["first_answer"] <= one["last_answer"]
    chatty = meta[f"llm:toy-model@{host}/stammbach2023-intrusion-v1/t0.7/s0"]["unusable"]
    assert list(chatty) == [f"wi-{CHATTY}"] and chatty[f"wi-{CHATTY}"]["raw"].startswith("Sure!")
    # scores with the same code as people's: read straight from the database
    scores = score(read_results(store, study), study)
    topics = {t["topic"]: t for t in scores["topics"]}
    precision = {k: t["model_precision"] for k, t in topics.items() if "model_precision" in t}
    assert precision == pytest.approx(_expected_precision())
    assert 0 < sum(precision.values()) < len(precision)  # the rule misses some intruders: a real test
    ratings = {k: t["mean_rating"] for k, t in topics.items()}
    assert ratings == pytest.approx(_expected_ratings(3))
    assert scores["n_annotators"] == 6
    assert f"llm=llm:toy-model@{host}/stammbach2023-intrusion-v1/t0.7," in scores["signature"]
    assert "llm_samples=6" in scores["signature"]
    # the key is in no file written (database, its WAL, the cache)
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def test_cli_score_and_correlate_give_what_the_rule_implies(tmp_path, reference, run_cli, monkeypatch):
    monkeypatch.setenv("TEALEAVES_TEST_KEY", KEY)
    study_file = tmp_path / "study.json"
    _study().save(study_file)
    store, scores_file = tmp_path / "j.sqlite", tmp_path / "scores.json"
    with ChatServer(Rule(reference)) as server:
        run = run_cli(["human", "ask", study_file, "--endpoint", server.url, "--model", "toy-model",
                       "--n-samples", "2", "--temperature", "0", "-j", "2", "--api-key-env",
                       "TEALEAVES_TEST_KEY", "-o", store, "--format", "json"])
    assert run.code == 0, run.err
    out = json.loads(run.out)
    assert out["counts"]["stored"] == 30 and out["counts"]["unusable"] == 2
    assert out["signature"].startswith("llm-annotators|study=")
    assert KEY not in run.out + run.err
    run = run_cli(["human", "score", store, "--study", study_file, "-o", scores_file])
    assert run.code == 0, run.err
    report = json.loads(scores_file.read_text(encoding="utf-8"))
    ratings = {t["topic"]: t["mean_rating"] for t in report["topics"]}
    assert ratings == pytest.approx(_expected_ratings(2))
    # samples differ (sample 1 is kinder), so the ratings' agreement is defined and below 1
    alpha = report["agreement"]["rating"]["krippendorff_alpha_interval"]
    assert -1 < alpha < 1
    # human correlate against NPMI: the Pearson correlation the rule implies, recomputed with numpy
    npmi = {str(k): topic_npmi(words) for k, (words, _) in TOPICS.items()}
    (tmp_path / "npmi.csv").write_text("topic,npmi\n" + "".join(f"{k},{v!r}\n" for k, v in npmi.items()),
                                       encoding="utf-8")
    keys = sorted(npmi)
    expected = float(np.corrcoef([ratings[k] for k in keys], [npmi[k] for k in keys])[0, 1])
    for how in ("topics", "annotators"):
        run = run_cli(["human", "correlate", scores_file, "--measure-scores", tmp_path / "npmi.csv",
                       "--score", "mean_rating", "--bootstrap", how, "--n-boot", "200", "--format", "json"])
        assert run.code == 0, run.err
        result = json.loads(run.out)
        row = result[0] if isinstance(result, list) else result
        assert row["pearson"]["estimate"] == pytest.approx(expected, abs=1e-12)
        ci = row["pearson"]["ci"]
        assert ci["low"] <= ci["high"]
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path


def test_prompts_are_the_published_text_and_answers_are_read_strictly():
    item = {"id": "wi-0", "task": "word_intrusion", "options": ["oil", "cat", "dog", "U.S."]}
    q = pr.question(item, seed=0, sample=0)
    assert q.messages[0]["content"] == (
        "You are a helpful assistant evaluating the top words of a topic model output for a given topic. "
        "Select which word is the least related to all other words. If multiple words do not fit, choose "
        "the word that is most out of place.\nReply with a single word.")
    assert sorted(re.findall(r'"([^"]+)"', q.messages[1]["content"])) == sorted(item["options"])
    assert q.messages[1]["content"].count(", ") == 3
    assert pr.parse_answer(q, ' "Oil". ').response == "oil"
    assert pr.parse_answer(q, "U.S.").response == "U.S." and pr.parse_answer(q, "u.s.").response == "U.S."
    assert pr.parse_answer(q, "u.s").reason == "not_an_option"  # a full stop is removed only when needed
    assert pr.parse_answer(q, "oil cat").reason == "not_an_option"
    assert pr.parse_answer(q, "  ").reason == "empty" and pr.parse_answer(q, None).reason == "empty"
    orders = {tuple(re.findall(r'"([^"]+)"', pr.question(item, seed=0, sample=s).messages[1]["content"]))
              for s in range(8)}
    assert len(orders) > 1  # samples see their own orders; the same sample always the same
    assert pr.question(item, seed=0, sample=3) == pr.question(item, seed=0, sample=3)
    # rating on tealeaves' 0-2 scale: the published 1-3 prompt, "1" -> "0" ... "3" -> "2"
    r = pr.question(rating_item(3, ["a", "b", "c"]), seed=0, sample=0)
    assert r.version == "stammbach2023-rating-v1"
    assert r.messages[0]["content"].endswith(
        'on a scale from 1 to 3 ("1" = not very related, "2" = moderately related, "3" = very related). '
        '\nReply with a single number, indicating the overall appropriateness of the topic.')
    assert [pr.parse_answer(r, x).response for x in ("1", "2", "3.", "0", "4", "two")] == \
        ["0", "1", "2", None, None, None]
    assert pr.parse_answer(r, "4").reason == "not_on_scale"
    # a 1-5 scale: the adapted prompt names it and reads its own values
    five = {"id": "r-1", "task": "rating", "topic": 1, "words": ["a", "b"], "options": list("12345"),
            "check": False}
    q5 = pr.question(five, seed=0, sample=0)
    assert q5.version == "stammbach2023-rating-adapted-v1" and 'from 1 to 5 ("1" = not very' in \
        q5.messages[0]["content"]
    assert [pr.parse_answer(q5, x).response for x in "12345"] == list("12345")
    # topic intrusion (Chang et al. 2009): topics numbered as shown; the answer is that number
    ti = {"id": "ti-4", "task": "topic_intrusion", "document": "d4", "title": "Oil",
          "text": "Crude oil rose.", "options": ["3", "0", "7", "1"],
          "option_words": {"3": ["oil"], "0": ["cat"], "7": ["sky"], "1": ["gas"]}}
    qt = pr.question(ti, seed=1, sample=0)
    shown = re.findall(r"^(\d)\. (\w+)$", qt.messages[1]["content"], flags=re.M)
    by_word = {"oil": "3", "cat": "0", "sky": "7", "gas": "1"}
    assert [pr.parse_answer(qt, n).response for n, _ in shown] == [by_word[w] for _, w in shown]
    assert pr.parse_answer(qt, "5").reason == "not_an_option"
    assert "Title: Oil\n\nCrude oil rose." in qt.messages[1]["content"]


def test_faults_are_counted_and_a_stopped_run_resumes_without_asking_twice(tmp_path, reference):
    """A 500 and a 429 are retried; an empty answer, malformed JSON and a timeout (twice) fail their items,
    each with its reason; ``max_requests`` stops the run part-way (the rest "not asked"); a rerun asks
    exactly the failed and the unasked questions, never one answered before, and stores nothing twice."""
    study, store = _study(), tmp_path / "j.sqlite"
    # requests (one at a time): item 1 = 1 (500), 2; item 2 = 3 (429), 4; item 3 = 5 (empty);
    # item 4 = 6 (malformed); item 5 = 7, 8 (both past the timeout); items 6-8 = 9-11
    faults = {1: 500, 3: (429, "0"), 5: "empty", 6: "malformed", 7: ("sleep", 3), 8: ("sleep", 3)}
    args = dict(model="toy-model", output=store, n_jobs=1, api_key_env=None, backoff=0, timeout=1)
    with ChatServer(Rule(reference), faults=faults) as server:
        first = ask(study, endpoint=server.url, max_requests=8, max_retries=1, **args)
        assert len(server.requests) == 11
        answered_first = {json.dumps(b["messages"]) for b in server.answered}
        c = first.counts
        assert (c["requests"], c["asked"], c["failed"], c["not_asked"], c["stored"]) == (16, 5, 3, 8, 5)
        errors = " | ".join(f["error"] for f in first.failed)
        assert "empty answer" in errors and "malformed JSON" in errors and "tim" in errors.lower(), errors
        assert first.client["retried"] == 3 and first.client["over_budget"] == 8
        assert len(answered_first) == 5
        server.faults = {}  # the same endpoint, now healthy: the rerun
        second = ask(study, endpoint=server.url, **args)
        asked_again = [json.dumps(b["messages"]) for b in server.requests[11:]]
    assert (second.counts["cached"], second.counts["asked"], len(asked_again)) == (5, 11, 11)
    assert not answered_first & set(asked_again)  # nothing answered before is asked again
    assert second.counts["unusable"] == 1  # the chatty item, asked in the second run
    assert second.counts["stored"] == 10 and second.counts["duplicate"] == 5


def test_benchmark_self_test_runs_end_to_end():
    """`benchmarks/llm_vs_people.py --self-test`: Hoyle et al.'s layout, the local server, the table, and
    the rating correlations checked against scipy inside the benchmark."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(repo / "src"),
                                                                     os.environ.get("PYTHONPATH")]))}
    run = subprocess.run([sys.executable, str(repo / "benchmarks" / "llm_vs_people.py"), "--self-test"],
                         capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "self-test passed: 128 requests" in run.stdout
    assert run.stdout.count("| rating |") == 4 and run.stdout.count("| intrusion |") == 4
    # a row whose estimate lies outside its percentile interval is marked, and the mark explained
    marked = [line for line in run.stdout.splitlines() if line.startswith("|") and "]*" in line]
    assert marked and "* the estimate lies outside its percentile interval" in run.stdout
    for line in marked:
        for cell in line.split("|")[4:6]:
            if cell.strip().endswith("*"):
                rho, low, high = map(float, re.findall(r"[+-]\d\.\d+", cell))
                assert not low <= rho <= high


def test_every_downstream_signature_names_the_models_and_the_dates_of_their_answers(tmp_path, reference,
                                                                                    run_cli):
    """Issue 23 point 4: the models, endpoint host, prompt versions, temperature and the dates of the answers
    reach the signatures of `human score`, `human correlate`, `human compare` and `human models` (and the
    API's), read back with ``Signature.parse``; the dates are recomputed from the database with sqlite3."""
    import sqlite3

    from tealeaves.errors import ParameterError
    from tealeaves.human import correlate
    from tealeaves.human.comparison import compare_measures, model_level
    from tealeaves.signature import Signature

    study = _study()
    study_file, store, scores_file = tmp_path / "study.json", tmp_path / "j.sqlite", tmp_path / "scores.json"
    study.save(study_file)
    with ChatServer(Rule(reference)) as server:
        report = ask(study, endpoint=server.url, model="toy-model", output=store, n_samples=2,
                     temperature=0.7, api_key_env=None)
    host = server.url.split("//")[1].split("/")[0]
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT value FROM meta WHERE key LIKE 'llm_annotator:%'").fetchall()
    meta = [json.loads(v) for (v,) in rows]
    days = sorted(d[:10] for m in meta for d in (m["first_answer"], m["last_answer"]))
    dates = f"{days[0]}..{days[-1]}"
    assert Signature.parse(str(report.signature)).fields["dates"] == dates
    configs = ",".join(f"llm:toy-model@{host}/{v}/t0.7"
                       for v in ("stammbach2023-intrusion-v1", "stammbach2023-rating-v1"))
    want = {"llm": configs, "llm_samples": "4", "llm_dates": dates}

    def llm_of(signature: str) -> dict:
        fields = Signature.parse(signature).fields
        return {k: fields[k] for k in want if k in fields}

    assert run_cli(["human", "score", store, "--study", study_file, "-o", scores_file]).code == 0
    scored = json.loads(scores_file.read_text(encoding="utf-8"))
    assert llm_of(scored["signature"]) == want
    npmi = {str(k): topic_npmi(words) for k, (words, _) in TOPICS.items()}
    (tmp_path / "m.csv").write_text("topic,npmi,order\n" + "".join(
        f"{k},{v!r},{int(k) % 4}\n" for k, v in npmi.items()), encoding="utf-8")
    common = ["--measure-scores", tmp_path / "m.csv", "--score", "mean_rating", "--n-boot", "50",
              "--format", "json"]
    run = run_cli(["human", "correlate", scores_file, *common])
    assert run.code == 0, run.err
    assert all(llm_of(o["signature"]) == want for o in json.loads(run.out))
    run = run_cli(["human", "compare", scores_file, *common, "--measure", "npmi", "--measure", "order"])
    assert run.code == 0, run.err
    assert llm_of(json.loads(run.out)["signature"]) == want
    # the API: the 'llm' entry of the score's report, passed on; nothing added without one
    ratings = {t["topic"]: t["mean_rating"] for t in scored["topics"]}
    api = correlate(ratings, npmi, n_boot=20, llm=scored["llm"])
    assert llm_of(api["signature"]) == want
    assert llm_of(correlate(ratings, npmi, n_boot=20)["signature"]) == {}
    assert llm_of(compare_measures(ratings, npmi, {k: -v for k, v in npmi.items()}, n_boot=20,
                                   llm=scored["llm"])["signature"]) == want
    composite = {f"m{int(k) % 3}/{k}": v for k, v in ratings.items()}
    levels = model_level(composite, {f"m{int(k) % 3}/{k}": v for k, v in npmi.items()},
                         key=["model", "topic"], n_boot=20, llm=scored["llm"])
    assert llm_of(levels["signature"]) == want
    with pytest.raises(ParameterError, match="llm"):
        correlate(ratings, npmi, llm={"llm": "x", "seed": 3})
    # judgments read from a table (no database, so no metadata): the dates are unknown, never invented
    frame = read_results(store, study).frame
    assert score(read_results(frame, study), study)["llm"]["llm_dates"] == "unknown"


def test_a_scores_file_with_a_tampered_llm_entry_is_refused(tmp_path, run_cli):
    scores = {"topics": [{"topic": str(k), "mean_rating": float(k % 3)} for k in range(5)],
              "llm": {"llm": ["llm:x@h/v/t0"], "llm_samples": 2, "llm_dates": "2026-01-01..2026-01-02",
                      "injected": "yes"}}
    (tmp_path / "s.json").write_text(json.dumps(scores), encoding="utf-8")
    (tmp_path / "m.csv").write_text("topic,npmi\n" + "".join(f"{k},{k / 7}\n" for k in range(5)),
                                    encoding="utf-8")
    run = run_cli(["human", "correlate", tmp_path / "s.json", "--measure-scores", tmp_path / "m.csv"])
    assert run.code == 1 and "'llm' entry" in run.err and "Traceback" not in run.err
    del scores["llm"]["injected"]
    (tmp_path / "s.json").write_text(json.dumps(scores), encoding="utf-8")
    run = run_cli(["human", "correlate", tmp_path / "s.json", "--measure-scores", tmp_path / "m.csv",
                   "--format", "json", "--n-boot", "20"])
    assert run.code == 0, run.err
    from tealeaves.signature import Signature

    fields = Signature.parse(json.loads(run.out)[0]["signature"]).fields
    assert (fields["llm"], fields["llm_samples"], fields["llm_dates"]) == (
        "llm:x@h/v/t0", "2", "2026-01-01..2026-01-02")


#: Stammbach et al.'s system prompts with a dataset description, as published in
#: dominiksinsaarland/evaluating-topic-model-output, src-human-correlations/chatGPT_evaluate_intruders.py
#: and chatGPT_evaluate_topic_ratings.py (copied here independently of tealeaves' prompts module).
PUBLISHED = {
    "stammbach2023-intrusion-nyt-v1": (
        "You are a helpful assistant evaluating the top words of a topic model output for a "
        "given topic. Select which word is the least related to all other words. If multiple "
        "words do not fit, choose the word that is most out of place. \nThe topic modeling is "
        "based on The New York Times corpus. The corpus consists of articles from 1987 to "
        "2007. Sections from a typical paper include International, National, New York "
        "Regional, Business, Technology, and Sports news; features on topics such as Dining, "
        "Movies, Travel, and Fashion; there are also obituaries and opinion pieces.\nReply "
        "with a single word."),
    "stammbach2023-intrusion-wikipedia-v1": (
        "You are a helpful assistant evaluating the top words of a topic model output for a "
        "given topic. Select which word is the least related to all other words. If multiple "
        "words do not fit, choose the word that is most out of place.\nThe topic modeling is "
        "based on the Wikipedia corpus. Wikipedia is an online encyclopedia covering a huge "
        "range of topics. Articles can include biographies (\"George Washington\"), scientific "
        "phenomena (\"Solar Eclipse\"), art pieces (\"La Danse\"), music (\"Amazing Grace\"), "
        "transportation (\"U.S. Route 131\"), sports (\"1952 winter olympics\"), historical "
        "events or periods (\"Tang Dynasty\"), media and pop culture (\"The Simpsons Movie\"), "
        "places (\"Yosemite National Park\"), plants and animals (\"koala\"), and warfare "
        "(\"USS Nevada (BB-36)\"), among others.\nReply with a single word."),
    "stammbach2023-rating-nyt-v1": (
        "You are a helpful assistant evaluating the top words of a topic model output for a "
        "given topic. Please rate how related the following words are to each other on a scale "
        "from 1 to 3 (\"1\" = not very related, \"2\" = moderately related, \"3\" = very "
        "related). \nThe topic modeling is based on The New York Times corpus. The corpus "
        "consists of articles from 1987 to 2007. Sections from a typical paper include "
        "International, National, New York Regional, Business, Technology, and Sports news; "
        "features on topics such as Dining, Movies, Travel, and Fashion; there are also "
        "obituaries and opinion pieces.\nReply with a single number, indicating the overall "
        "appropriateness of the topic."),
    "stammbach2023-rating-wikipedia-v1": (
        "You are a helpful assistant evaluating the top words of a topic model output for a "
        "given topic. Please rate how related the following words are to each other on a scale "
        "from 1 to 3 (\"1\" = not very related, \"2\" = moderately related, \"3\" = very "
        "related). \nThe topic modeling is based on the Wikipedia corpus. Wikipedia is an "
        "online encyclopedia covering a huge range of topics. Articles can include biographies "
        "(\"George Washington\"), scientific phenomena (\"Solar Eclipse\"), art pieces (\"La "
        "Danse\"), music (\"Amazing Grace\"), transportation (\"U.S. Route 131\"), sports "
        "(\"1952 winter olympics\"), historical events or periods (\"Tang Dynasty\"), media "
        "and pop culture (\"The Simpsons Movie\"), places (\"Yosemite National Park\"), plants "
        "and animals (\"koala\"), and warfare (\"USS Nevada (BB-36)\"), among others.\nReply "
        "with a single number, indicating the overall appropriateness of the topic."),
}
#: The variants the test asks: per task the standard prompt and one with a dataset description.
VARIANTS = ("stammbach2023-intrusion-v1", "stammbach2023-intrusion-nyt-v1", "stammbach2023-rating-v1",
            "stammbach2023-rating-wikipedia-v1")


def variant_rule(body: dict) -> str:
    """Answers by prompt: the standard intrusion prompt picks the word of lowest mean NPMI (the rule), the NYT
    variant the word of highest; the standard rating prompt rates by the thresholds, the Wikipedia variant
    one point kinder (up to 3).  Plain Python NPMI over :data:`DOCS`."""
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    if "Select which word" in system:
        words = re.findall(r'"([^"]+)"', user)
        pick = min if system == pr.PROMPTS["stammbach2023-intrusion-v1"].system else max
        return pick(words, key=lambda w: mean_npmi(w, words))
    kinder = system == PUBLISHED["stammbach2023-rating-wikipedia-v1"]
    return str(rule_rating(topic_npmi(user.split(", ")), 1 if kinder else 0))


def test_prompt_variants_are_separate_annotators_and_never_share_an_answer(tmp_path, run_cli):
    """Two prompt versions per task x 2 samples = 4 annotators per task; `human score` pools them as 4
    annotators, and scoring each alone gives what its prompt's rule implies; the requests carry each
    variant's published text; the variants are asked anew (no answer of the standard prompt reused) and a
    rerun sends nothing."""
    assert {v: pr.PROMPTS[v].system for v in PUBLISHED} == PUBLISHED
    assert set(VARIANTS) <= {v for vs in pr.TASK_VARIANTS.values() for v in vs}
    study = _study()
    study_file, store = tmp_path / "study.json", tmp_path / "j.sqlite"
    study.save(study_file)
    with ChatServer(variant_rule) as server:
        first = ask(study, endpoint=server.url, model="toy-model", output=store, n_samples=2,
                    api_key_env=None)
        assert len(server.requests) == first.counts["asked"] == 2 * 2 * len(TOPICS)
        run = run_cli(["human", "ask", study_file, "--endpoint", server.url, "--model", "toy-model",
                       "--prompts", ",".join(VARIANTS), "--n-samples", "2", "-o", store, "--format", "json"])
        assert run.code == 0, run.err
        second = json.loads(run.out)
        new = server.requests[len(first.annotators) * len(TOPICS):]
        n_sent = len(server.requests)
        again = ask(study, endpoint=server.url, model="toy-model", output=store, n_samples=2,
                    api_key_env=None, prompts=VARIANTS)
        assert len(server.requests) == n_sent  # a rerun sends nothing
    host = server.url.split("//")[1].split("/")[0]
    # the standard prompts' answers come from the cache; each variant is asked anew, with its published text
    c = second["counts"]
    assert (c["requests"], c["cached"], c["asked"], c["stored"], c["duplicate"]) == (64, 32, 32, 32, 32)
    sent = Counter(b["messages"][0]["content"] for b in new)
    assert sent == {PUBLISHED["stammbach2023-intrusion-nyt-v1"]: 16,
                    PUBLISHED["stammbach2023-rating-wikipedia-v1"]: 16}
    assert again.counts["cached"] == 64 and again.counts["asked"] == 0 and again.counts["stored"] == 0
    # a variant shows the same words in the same order as the standard prompt, for the same sample
    users = {}
    for body in server.requests:
        shown = (body["messages"][1]["content"], body["seed"])
        users.setdefault(shown, set()).add(body["messages"][0]["content"])
    assert all(len(systems) == 2 for systems in users.values())
    names = sorted(f"llm:toy-model@{host}/{v}/t0/s{s}" for v in VARIANTS for s in range(2))
    assert second["annotators"] == names == again.annotators
    # pooled: 4 annotators per task, the mean of what each prompt's rule implies
    results = read_results(store, study)
    pooled = score(results, study)
    assert pooled["n_annotators"] == 8
    low = {str(k): min(w + [i], key=lambda x: mean_npmi(x, w + [i])) == i for k, (w, i) in TOPICS.items()}
    high = {str(k): max(w + [i], key=lambda x: mean_npmi(x, w + [i])) == i for k, (w, i) in TOPICS.items()}
    rated = {str(k): topic_npmi(w) for k, (w, _) in TOPICS.items()}
    topics = {t["topic"]: t for t in pooled["topics"]}
    assert {k: t["model_precision"] for k, t in topics.items()} == pytest.approx(
        {k: (2 * low[k] + 2 * high[k]) / 4 for k in low})
    assert {k: t["mean_rating"] for k, t in topics.items()} == pytest.approx(
        {k: (2 * (rule_rating(v, 0) - 1) + 2 * (rule_rating(v, 1) - 1)) / 4 for k, v in rated.items()})
    assert sum(low.values()) != sum(high.values())  # the two prompts' annotators really differ
    # each annotator scored alone: its own prompt's rule
    for name in names:
        alone = score(results, study, exclude_annotators=[n for n in names if n != name])
        assert alone["n_annotators"] == 1
        per_topic = {t["topic"]: t for t in alone["topics"]}
        if "/stammbach2023-intrusion" in name:
            expected = high if "-nyt-" in name else low
            assert {k: t["model_precision"] for k, t in per_topic.items()} == pytest.approx(
                {k: float(v) for k, v in expected.items()})
        else:
            kind = 1 if "-wikipedia-" in name else 0
            assert {k: t["mean_rating"] for k, t in per_topic.items()} == pytest.approx(
                {k: float(rule_rating(v, kind) - 1) for k, v in rated.items()})
    meta = annotator_metadata(store)
    assert meta[f"llm:toy-model@{host}/stammbach2023-rating-wikipedia-v1/t0/s1"]["prompt_source"].startswith(
        "Stammbach")


def test_a_variant_asks_the_same_item_in_the_same_order_with_its_own_text():
    ti = {"id": "ti-4", "task": "topic_intrusion", "document": "d4", "title": "Oil",
          "text": "Crude oil rose.", "options": ["3", "0", "7", "1"],
          "option_words": {"3": ["oil"], "0": ["cat"], "7": ["sky"], "1": ["gas"]}}
    std = pr.question(ti, seed=1, sample=2)
    para = pr.question(ti, seed=1, sample=2, version="chang2009-topic-intrusion-paraphrase-v1")
    assert para.version == "chang2009-topic-intrusion-paraphrase-v1" and "Not published" in \
        pr.PROMPTS[para.version].source
    assert para.messages[1] == std.messages[1] and para.answers == std.answers  # same topics, same numbers
    assert para.messages[0]["content"] != std.messages[0]["content"]
    assert "then 4 numbered topics" in para.messages[0]["content"] and "about 3 of them" in \
        para.messages[0]["content"]
    with pytest.raises(ParameterError, match="is a rating prompt and topic_intrusion|rating is not asked"):
        pr.question(ti, seed=1, sample=0, version="stammbach2023-rating-v1")
    # a rating variant maps "1".."3" onto the study's 0-2 scale like the standard prompt
    r = pr.question(rating_item(3, ["a", "b", "c"]), seed=0, sample=0, version="stammbach2023-rating-nyt-v1")
    assert [pr.parse_answer(r, x).response for x in ("1", "2", "3", "4")] == ["0", "1", "2", None]
    assert pr.parse_answer(r, "4").reason == "not_on_scale"


def test_docs_print_every_prompt_variant_in_full():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[1] / "docs" / "human.md").read_text(encoding="utf-8")
    for versions in pr.TASK_VARIANTS.values():
        for version in versions[1:]:
            text = pr.PROMPTS[version].system.replace("{n_in}", "{n-1}")
            assert "\n".join("    " + line for line in text.split("\n")) in doc, version
            assert f"`{version}`" in doc
