"""The annotation web app: SQLite store, HTTP API, a real browser session and a crash-and-retry load test."""

from __future__ import annotations

import csv
import http.client
import json
import os
import threading
from pathlib import Path

import numpy as np
import pytest

from tealeaves.cli import main
from tealeaves.errors import ParameterError
from tealeaves.human import _fuzz, _loadtest
from tealeaves.human.app import MAX_BODY, AnnotationApp, serve
from tealeaves.human.store import CONFLICT, DUPLICATE, STORED, JudgmentStore, StoreError, StoreUnavailable
from tealeaves.human.study import build_study
from tealeaves.models.base import FixedTopicModel

CHROMIUM = Path("/usr/bin/chromium")
#: Random bodies posted by the property test (TEALEAVES_FUZZ_EXAMPLES; the benchmark runs more).
FUZZ_EXAMPLES = int(os.environ.get("TEALEAVES_FUZZ_EXAMPLES", "200"))
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


# -- the server always answers (issue 9, point 6) ------------------------------------------------------
def raw_request(port, data: bytes) -> bytes:
    """Send raw bytes and return everything the server answers before closing."""
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(data)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def judgment(study, tokens, name="alice", **over):
    item = study.by_id[study.order_for(name)[0]]
    body = {"item_id": item["id"], "response": item["options"][0], "key": "key-" + "x" * 12}
    body.update(over)
    return f"/api/{tokens[name]}/judgments", body


@pytest.mark.parametrize("over, status, fragment", [
    ({"time": -1}, 400, "time must be a finite number >= 0"),
    ({"confidence": -0.5}, 400, "confidence must be a finite number >= 0"),
    ({"confidence": True}, 400, "confidence must be"),
    ({"time": "3"}, 400, "time must be"),
    ({"time": 10**400}, 400, "time must be"),
    ({"response": ["a"]}, 400, "response must be a string"),
    ({"response": None}, 400, "missing ['response']"),
    ({"item_id": 7}, 400, "item_id must be a string"),
    ({"key": 12345678}, 400, "idempotency key"),
    ({"extra": 1}, 400, "unknown ['extra']"),
    ({"item_id": "no-such-item"}, 404, "unknown item"),
])
def test_bad_judgment_fields_are_400(running, over, status, fragment):
    study, store, tokens, port, _ = running
    path, body = judgment(study, tokens, **over)
    code, reply = call(port, "POST", path, body)
    assert code == status and fragment in reply["error"]
    assert store.rows() == []


@pytest.mark.parametrize("body, fragment", [
    (b'{"item_id": "r-0", "response": "1", "key": "kkkkkkkk", "time": NaN}', "NaN is not valid JSON"),
    (b'{"time": Infinity}', "Infinity is not valid JSON"),
    (b"\xff\xfe not utf-8", "UTF-8"),
    (b'{"item_id": "\\ud800", "response": "1", "key": "kkkkkkkk"}', "surrogates"),
    (b"[" * 60000, "JSON"),
    (b"[1, 2]", "must be a JSON object, found an array"),
    (b"", "JSON"),
])
def test_malformed_bodies_are_400(running, body, fragment):
    study, store, tokens, port, _ = running
    code, _, data = _fuzz.post(port, f"/api/{tokens['alice']}/judgments", body)
    assert code == 400 and fragment in json.loads(data)["error"]


def test_sizes_methods_paths_and_raw_http(running):
    study, store, tokens, port, _ = running
    path = f"/api/{tokens['alice']}/judgments"
    code, headers, data = _fuzz.post(port, path, b" " * (MAX_BODY + 1))
    assert code == 413 and "at most 65536" in json.loads(data)["error"]
    assert _fuzz.post(port, path, b" " * MAX_BODY)[0] == 400  # at the limit: read, then judged as JSON
    assert call(port, "GET", path)[0] == 405
    assert call(port, "PUT", path, {})[0] == 405 and call(port, "DELETE", "/healthz")[0] == 405
    assert call(port, "POST", f"/api/{tokens['alice']}/state", {})[0] == 405
    assert call(port, "POST", "/nowhere", {})[0] == 404 and call(port, "GET", "/nowhere")[0] == 404
    assert call(port, "POST", "/api/not-a-token/judgments", {})[0] == 404
    assert raw_request(port, b"GARBAGE\r\n\r\n").split(b" ")[1] == b"400"
    assert raw_request(port, b"BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n").split(b" ")[1] == b"405"
    for length in (b"abc", b"-5"):
        reply = raw_request(port, b"POST " + path.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                            b"Content-Length: " % port + length + b"\r\n\r\n")
        assert reply.split(b" ")[1] == b"400"
    reply = raw_request(port, b"POST " + path.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                        b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" % port)
    assert reply.split(b" ")[1] == b"411"
    reply = raw_request(port, b"POST " + path.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % port)
    assert reply.split(b" ")[1] == b"411"
    assert call(port, "GET", "/healthz") == (200, "ok")


def test_origin_and_host_are_checked_on_posts(running):
    study, store, tokens, port, _ = running
    path, body = judgment(study, tokens)
    raw = json.dumps(body).encode()
    evil = _fuzz.post(port, path, raw, {"Origin": "http://evil.example"})
    assert evil[0] == 403 and "Origin 'http://evil.example' may not post" in json.loads(evil[2])["error"]
    assert _fuzz.post(port, path, raw, {"Origin": "null"})[0] == 403
    rebound = _fuzz.post(port, path, raw, {"Host": f"evil.example:{port}"})
    assert rebound[0] == 403 and "is not this server's address" in json.loads(rebound[2])["error"]
    assert store.rows() == []
    ok = _fuzz.post(port, path, raw, {"Origin": f"http://localhost:{port}", "Host": f"localhost:{port}"})
    assert ok[0] == 200 and len(store.rows()) == 1


def test_allow_origin_admits_a_reverse_proxy(tmp_path):
    study = small_study()
    store = JudgmentStore(tmp_path / "p.sqlite")
    app = AnnotationApp(study, store)
    tokens = store.ensure_annotators(["alice"])
    server = app.make_server("127.0.0.1", 0, allowed_origins=["https://annotate.example.org/"])
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        port = server.server_address[1]
        path, body = judgment(study, tokens)
        proxy = {"Origin": "https://annotate.example.org", "Host": "annotate.example.org"}
        assert _fuzz.post(port, path, json.dumps(body).encode(), proxy)[0] == 200
        assert _fuzz.post(port, path, json.dumps(body).encode(), {"Origin": "https://other.org"})[0] == 403
    finally:
        server.shutdown()
        server.server_close()
        store.close()
    with pytest.raises(ParameterError, match="is not an origin"):
        app.make_server("127.0.0.1", 0, allowed_origins=["annotate.example.org/path"])


def test_database_that_cannot_be_written_gives_503_and_recovers(running, tmp_path):
    """Disk full (SQLite's max_page_count: a real SQLITE_FULL), read-only and locked: 503, nothing stored."""
    import sqlite3

    study, store, tokens, port, _ = running
    path, body = judgment(study, tokens)
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(StoreUnavailable, match="database or disk is full"):  # fill the last page
        for i in range(10_000):
            store.submit("zz", f"junk-{i}", "1", f"junk-{i:06d}")
    n_rows = len(store.rows())
    code, headers, data = _fuzz.post(port, path, json.dumps(body).encode())
    assert code == 503 and headers["Retry-After"] == "2" and "disk is full" in json.loads(data)["error"]
    assert len(store.rows()) == n_rows and call(port, "GET", f"/api/{tokens['alice']}/state")[0] == 200
    store._db.execute("PRAGMA max_page_count = 1073741823")
    code, _, data = _fuzz.post(port, path, json.dumps(body).encode())  # the page retries with the same key
    assert code == 200 and json.loads(data)["status"] == "stored"
    second = dict(body, item_id=study.order_for("alice")[1], key="key-second-1")
    second["response"] = study.by_id[second["item_id"]]["options"][0]
    store._db.execute("PRAGMA query_only = ON")  # a read-only database
    code, _, data = _fuzz.post(port, path, json.dumps(second).encode())
    assert code == 503 and "readonly" in json.loads(data)["error"]
    store._db.execute("PRAGMA query_only = OFF")
    other = sqlite3.connect(store.path, timeout=0)
    other.execute("BEGIN EXCLUSIVE")  # another program holds the write lock
    store._db.execute("PRAGMA busy_timeout = 50")
    try:
        code, _, data = _fuzz.post(port, path, json.dumps(second).encode())
        assert code == 503 and "locked" in json.loads(data)["error"]
    finally:
        other.rollback()
        other.close()
    assert _fuzz.post(port, path, json.dumps(second).encode())[0] == 200
    assert sum(r["annotator"] == "alice" for r in store.rows()) == 2


def test_random_bodies_never_break_the_server(running):
    """Hypothesis: random JSON/bytes bodies get a status < 500 and the server keeps answering."""
    from hypothesis import HealthCheck, given, settings

    study, store, tokens, port, _ = running
    path = f"/api/{tokens['bob']}/judgments"
    seen = set()

    @settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(_fuzz.bodies(study))
    def check(body):
        code, _, data = _fuzz.post(port, path, body)
        assert code < 500, (code, body, data)
        assert isinstance(json.loads(data)["status" if code in (200, 409) else "error"], str)
        seen.add(code)

    check()
    assert {200, 400} <= seen and call(port, "GET", "/healthz") == (200, "ok")
    assert all(r["annotator"] == "bob" for r in store.rows())


def test_names_printed_by_serve_are_escaped(tmp_path):
    study = small_study(name="evil\nLINK mallory http://evil.example/a/x \x1b[2J")
    lines = []

    def announce(text, flush=True):
        lines.append(text)
        if text.startswith("LINK"):
            raise KeyboardInterrupt  # stop after the first link, as Ctrl-C would

    serve(study, str(tmp_path / "e.sqlite"), ["bob\r\u202eeve"], port=0, announce=announce)
    assert len(lines) == 2 and all("\n" not in x and "\x1b" not in x and "\r" not in x for x in lines)
    assert "evil\\nLINK mallory http://evil.example/a/x \\x1b[2J" in lines[0]
    assert lines[1].startswith("LINK bob\\r\\u202eeve http://127.0.0.1:")
