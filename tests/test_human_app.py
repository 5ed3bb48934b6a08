"""The annotation web app: SQLite store, HTTP API, a real browser session and a crash-and-retry load test."""

from __future__ import annotations

import csv
import http.client
import json
import threading
from pathlib import Path

import numpy as np
import pytest

from tealeaves.cli import main
from tealeaves.human import _loadtest
from tealeaves.human.app import AnnotationApp
from tealeaves.human.store import CONFLICT, DUPLICATE, STORED, JudgmentStore, StoreError
from tealeaves.human.study import build_study
from tealeaves.models.base import FixedTopicModel

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def small_study(**kw):
    rng = np.random.default_rng(0)
    n_topics, n_words = 6, 80
    phi = rng.dirichlet(np.full(n_words, 0.05), size=n_topics)
    model = FixedTopicModel(phi, [f"w{i}" for i in range(n_words)])
    theta = rng.dirichlet(np.full(n_topics, 0.3), size=5) + 1e-3
    theta /= theta.sum(axis=1, keepdims=True)
    ml = {"en": model.top_words(5), "fr": [[w + "_fr" for w in t] for t in model.top_words(5)]}
    args = dict(tasks=["word_intrusion", "rating", "topic_intrusion", "multilingual_rating"], topics=[0, 1],
                doc_topic=theta, titles=[f"Title {d}" for d in range(5)], texts=["Body text. " * 20] * 5,
                documents=[0], multilingual=ml, n_checks=1, rating_words=5, seed=3, name="small",
                confidence=True)
    args.update(kw)
    return build_study(model, **args)


@pytest.fixture
def running(tmp_path):
    """An in-process server on 127.0.0.1 with annotators alice and bob."""
    study = small_study()
    store = JudgmentStore(tmp_path / "j.sqlite")
    app = AnnotationApp(study, store)
    tokens = store.ensure_annotators(["alice", "bob"])
    server = app.make_server("127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield study, store, tokens, server.server_address[1], tmp_path
    server.shutdown()
    server.server_close()
    store.close()


def call(port, method, path, body=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.request(method, path, None if body is None else json.dumps(body).encode(),
                 {"Content-Type": "application/json"})
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    try:
        return resp.status, json.loads(data)
    except ValueError:
        return resp.status, data.decode()


def test_store_idempotency_conflict_and_study_binding(tmp_path):
    store = JudgmentStore(tmp_path / "s.sqlite")
    store.bind_study("aaaa")
    store.ensure_annotators(["x"])
    assert store.submit("x", "i1", "2", "key-00001") == STORED
    assert store.submit("x", "i1", "2", "key-00001") == DUPLICATE
    assert store.submit("x", "i1", "0", "key-00002") == CONFLICT
    with pytest.raises(StoreError, match="already used"):
        store.submit("x", "i2", "0", "key-00001")
    assert [r["response"] for r in store.rows()] == ["2"]
    with pytest.raises(StoreError, match="another study"):
        store.bind_study("bbbb")
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.close()


def test_api_hides_answers_and_validates(running):
    study, store, tokens, port, _ = running
    code, state = call(port, "GET", f"/api/{tokens['alice']}/state")
    assert code == 200 and state["total"] == len(study) and state["answered"] == 0
    item = state["item"]
    assert item["id"] == study.order_for("alice")[0]
    assert not {"answer", "expected", "check", "theta"} & set(item)
    base = f"/api/{tokens['alice']}/judgments"
    assert call(port, "POST", base, {"item_id": item["id"], "response": "zzz", "key": "k" * 10})[0] == 400
    assert call(port, "POST", base, {"item_id": item["id"], "response": item["options"][0]})[0] == 400
    assert call(port, "POST", base, {"item_id": "nope", "response": "1", "key": "k" * 10})[0] == 404
    assert call(port, "GET", "/api/not-a-token/state")[0] == 404
    assert call(port, "GET", "/a/not-a-token")[0] == 404
    assert call(port, "GET", "/static/../cli.py")[0] == 404
    ok = {"item_id": item["id"], "response": item["options"][0], "key": "k" * 10}
    code, reply = call(port, "POST", base, ok)
    assert code == 200 and reply["status"] == "stored" and reply["answered"] == 1
    assert call(port, "GET", f"/api/{tokens['alice']}/state")[1]["item"]["id"] == study.order_for("alice")[1]
    code, reply = call(port, "POST", base, ok)  # a retry of the same submission
    assert code == 200 and reply["status"] == "duplicate" and reply["answered"] == 1
    code, reply = call(port, "POST", base, dict(ok, key="other-key-1"))
    assert code == 409 and reply["status"] == "conflict"
    second = study.order_for("alice")[1]
    rating = {"item_id": second, "response": study.by_id[second]["options"][1], "key": "k2" * 5,
              "confidence": 3, "time": 1.25}
    assert call(port, "POST", base, rating)[0] == 200
    assert [(r["item_id"], r["response"], r["confidence"], r["time"]) for r in store.rows()] == [
        (item["id"], item["options"][0], None, None), (second, rating["response"], 3.0, 1.25)]
    assert call(port, "POST", base, dict(rating, key="k3" * 5, confidence="high"))[0] == 400


def answer_all(page, choose) -> list[tuple[str, str]]:
    """Answer every item on the page; ``choose(page, item_id, options)`` returns the option it picked."""
    given = []
    page.wait_for_selector("#item:not([hidden]), #done:not([hidden])")
    while page.is_hidden("#done"):
        item_id = page.get_attribute("#item", "data-item-id")
        options = page.eval_on_selector_all("button.option", "bs => bs.map(b => b.dataset.value)")
        progress = page.text_content("#progress")
        assert f"({len(given)} answered)" in progress
        given.append((item_id, choose(page, options)))
        page.wait_for_function(
            "prev => !document.getElementById('done').hidden || "
            "(document.getElementById('item').dataset.itemId !== prev"
            " && !document.querySelector('button.option:disabled'))",
            arg=item_id)
    return given


@pytest.mark.browser
def test_two_annotators_complete_a_study_in_chromium(running):
    if not CHROMIUM.exists():
        pytest.skip("headless Chromium not found at /usr/bin/chromium (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    study, store, tokens, port, tmp_path = running

    def by_click(page, options):  # alice also gives her confidence, "high"
        page.check("input[name=confidence][value='3']")
        value = options[-1]
        page.click(f"button.option[data-value='{value}']")
        return value

    def by_key(page, options):
        page.keyboard.press("2")
        return options[1]

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            expected = set()
            for name, choose in (("alice", by_click), ("bob", by_key)):
                page = browser.new_context().new_page()
                page.goto(f"http://127.0.0.1:{port}/a/{tokens[name]}")
                given = answer_all(page, choose)
                assert [i for i, _ in given] == study.order_for(name)
                assert page.text_content("#progress") == f"{len(study)} of {len(study)} answered"
                expected |= {(i, name, r) for i, r in given}
        finally:
            browser.close()
    out = tmp_path / "long.csv"
    assert main(["annotate", "export", "--db", str(tmp_path / "j.sqlite"), "-o", str(out)]) == 0
    with open(out, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert {(r["item_id"], r["annotator"], r["response"]) for r in rows} == expected
    assert len(rows) == len(expected) == 2 * len(study)
    assert all(r["platform"] == "tealeaves-app" and float(r["time"]) >= 0 for r in rows)
    assert {r["confidence"] for r in rows if r["annotator"] == "alice"} == {"3.0"}
    assert {r["confidence"] for r in rows if r["annotator"] == "bob"} == {""}


def test_load_crash_and_retry_exactly_once(tmp_path):
    """50 annotators, 2,000 judgments, SIGKILL mid-run and restart: every acknowledged judgment once."""
    report = _loadtest.run(tmp_path, n_clients=50, n_judgments=2000, kill_after=0.4, timeout=45)
    print(json.dumps(report))
    assert report["client_errors"] == []
    assert report["acknowledged"] == 2000 and report["acked_before_kill"] < 2000
    assert report["lost"] == 0 and report["stored_more_than_once"] == 0
    assert report["stored_rows"] == 2000 and report["stored_unacknowledged"] == 0
    assert report["replays_answered_duplicate"] == 50 * 4  # every 10th of 40 judgments per client replayed
