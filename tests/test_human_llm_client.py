"""tealeaves.human.llm.client: the chat-completions transport against a local server (conftest's ChatServer).

Each case counts what the server received and what the cache holds, independently of the client's
own counts: retries after 429/5xx/timeouts, items failed with their reason, a rerun that sends
nothing, a killed run resumed without losing or re-asking an answer, the concurrency and budget
bounds, and the API key absent from every byte written.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import ChatServer
from tealeaves.human.llm import ChatCache, ChatClient, ChatRequest
from tealeaves.human.llm.client import ChatProgress

REPO = Path(__file__).resolve().parent.parent
#: Fast retries: the backoff is scaled down, the timeout short.
FAST = dict(backoff=0.001, timeout=2.0)


def _requests(n: int, version: str = "v1") -> list[ChatRequest]:
    return [ChatRequest((version, f"item/{i}", 0), ({"role": "user", "content": f"item {i}"},))
            for i in range(n)]


def _echo(body: dict) -> str:
    """The answer rule: the user message upper-cased (so each answer is checked against its item)."""
    return body["messages"][-1]["content"].upper()


def _item(body: dict) -> str:
    return body["messages"][-1]["content"]


def _client(server: ChatServer, tmp_path: Path, **kw) -> ChatClient:
    return ChatClient(server.url, "test-model", cache=tmp_path / "answers.sqlite", api_key_env=None,
                      **{**FAST, **kw})


def test_client_answers_every_request_in_order_with_the_documented_body(tmp_path):
    reqs = [ChatRequest(("v1", "a", 0),
                        ({"role": "system", "content": "sys"}, {"role": "user", "content": "x"}),
                        temperature=0.7, seed=3, max_tokens=5),
            ChatRequest(("v1", "b", 0), ({"role": "user", "content": "y"},))]
    with ChatServer(_echo) as server, _client(server, tmp_path) as client:
        results = client.run(reqs)
    assert [r.text for r in results] == ["X", "Y"]
    assert [r.status for r in results] == ["ok", "ok"] and not any(r.cached for r in results)
    bodies = sorted(server.requests, key=_item)
    assert bodies[0] == {"model": "test-model", "temperature": 0.7, "seed": 3, "max_tokens": 5,
                         "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "x"}]}
    assert bodies[1] == {"model": "test-model", "temperature": 0.0,
                         "messages": [{"role": "user", "content": "y"}]}
    assert "Authorization" not in server.headers[0]  # api_key_env=None sends no key


def test_client_retries_after_429_and_honours_retry_after(tmp_path):
    with ChatServer(_echo, faults={1: (429, "0.3")}) as server, _client(server, tmp_path, n_jobs=1) as client:
        start = time.monotonic()
        [result] = client.run(_requests(1))
        took = time.monotonic() - start
    assert result.status == "ok" and result.text == "ITEM 0" and result.attempts == 2
    assert len(server.requests) == 2 and took >= 0.3  # waited as Retry-After asked, not the 1 ms backoff
    assert client.stats["retried"] == 1 and client.stats["answered"] == 1


def test_client_retries_500s_then_succeeds(tmp_path):
    with ChatServer(_echo, faults={1: 500, 2: 503, 3: 502}) as server, \
            _client(server, tmp_path, n_jobs=1) as client:
        [result] = client.run(_requests(1))
    assert (result.status, result.text, result.attempts) == ("ok", "ITEM 0", 4)
    assert len(server.requests) == 4 and client.stats["retried"] == 3


def test_client_fails_an_item_after_its_retries_and_counts_it(tmp_path):
    always = lambda n, body: 500 if _item(body) == "item 1" else None  # noqa: E731
    with ChatServer(_echo, faults=always) as server, _client(server, tmp_path, max_retries=3) as client:
        results = client.run(_requests(3))
    assert [r.status for r in results] == ["ok", "failed", "ok"]
    assert (results[1].error, results[1].attempts, results[1].text) == ("HTTP 500 after 3 retries", 4, None)
    assert sum(_item(b) == "item 1" for b in server.requests) == 4
    assert client.stats["failed"] == 1 and client.stats["answered"] == 2
    with ChatCache(tmp_path / "answers.sqlite") as cache:
        assert cache.counts() == {"ok": 2, "failed": 1}
        assert cache.get(server.url, "test-model", ("v1", "item/1", 0)).error == "HTTP 500 after 3 retries"


def test_client_retries_a_timeout(tmp_path):
    with ChatServer(_echo, faults={1: ("sleep", 1.0)}) as server, \
            _client(server, tmp_path, n_jobs=1, timeout=0.2) as client:
        [result] = client.run(_requests(1))
    assert (result.status, result.text, result.attempts) == ("ok", "ITEM 0", 2)
    assert len(server.requests) == 2


def test_client_retries_a_dropped_connection(tmp_path):
    with ChatServer(_echo, faults={1: "reset"}) as server, _client(server, tmp_path, n_jobs=1) as client:
        [result] = client.run(_requests(1))
    assert (result.status, result.attempts) == ("ok", 2) and len(server.requests) == 2


@pytest.mark.parametrize(("fault", "reason"), [
    ("malformed", "malformed JSON"),
    ("nochoices", "the response has no choices[0].message.content"),
    ("empty", "empty answer"),
    (400, "HTTP 400"),
])
def test_client_fails_an_unusable_answer_without_retry_and_keeps_the_raw_text(tmp_path, fault, reason):
    with ChatServer(_echo, faults={1: fault}) as server, _client(server, tmp_path, n_jobs=1) as client:
        results = client.run(_requests(2))
    assert results[0].status == "failed" and results[0].error.startswith(reason) and results[0].attempts == 1
    assert results[1].text == "ITEM 1"
    assert len(server.requests) == 2  # not retried
    with ChatCache(tmp_path / "answers.sqlite") as cache:
        row = cache.get(server.url, "test-model", ("v1", "item/0", 0))
    assert row.status == "failed" and row.raw  # the raw response kept for inspection


def test_client_rerun_sends_no_request_and_returns_the_same_answers(tmp_path):
    with ChatServer(_echo) as server:
        with _client(server, tmp_path) as client:
            first = client.run(_requests(5))
        n = len(server.requests)
        with _client(server, tmp_path) as client:
            second = client.run(_requests(5))
        assert len(server.requests) == n == 5
    assert [r.text for r in second] == [r.text for r in first]
    assert all(r.cached and r.attempts == 0 for r in second)
    assert [r.created for r in second] == [r.created for r in first]
    assert client.stats["cached"] == 5 and client.stats["sent"] == 0


def test_client_rerun_asks_failed_items_again(tmp_path):
    with ChatServer(_echo, faults={1: "malformed"}) as server:
        with _client(server, tmp_path, n_jobs=1) as client:
            assert [r.status for r in client.run(_requests(3))] == ["failed", "ok", "ok"]
        with _client(server, tmp_path, n_jobs=1) as client:
            results = client.run(_requests(3))
    assert [r.cached for r in results] == [False, True, True] and results[0].text == "ITEM 0"
    assert [_item(b) for b in server.requests] == ["item 0", "item 1", "item 2", "item 0"]


def test_client_concurrency_bound_respected(tmp_path):
    with ChatServer(_echo, delay=0.2) as server, _client(server, tmp_path, n_jobs=3) as client:
        results = client.run(_requests(12))
    assert all(r.status == "ok" for r in results)
    assert server.max_in_flight == 3  # reached and never passed


def test_client_rate_limit_spaces_the_requests(tmp_path):
    with ChatServer(_echo) as server, _client(server, tmp_path, n_jobs=4, requests_per_minute=600) as client:
        start = time.monotonic()
        client.run(_requests(4))
        took = time.monotonic() - start
    assert took >= 0.3  # 4 starts, 0.1 s apart


def test_client_max_requests_leaves_the_rest_not_asked(tmp_path):
    with ChatServer(_echo) as server:
        with _client(server, tmp_path, n_jobs=2, max_requests=3) as client:
            results = client.run(_requests(7))
        assert [r.status for r in results].count("ok") == 3 and len(server.requests) == 3
        assert {r.status for r in results} == {"ok", "not_asked"}
        assert all(r.error == "max_requests (3) reached" for r in results if r.status == "not_asked")
        assert client.stats["over_budget"] == 4 and client.stats["failed"] == 0
        with _client(server, tmp_path, n_jobs=2) as client:  # the next run asks the rest
            assert all(r.status == "ok" for r in client.run(_requests(7)))
        assert len(server.requests) == 7 and len({_item(b) for b in server.requests}) == 7


def test_client_time_budget_stops_early_and_reports_not_asked(tmp_path):
    with ChatServer(_echo, delay=0.1) as server, \
            _client(server, tmp_path, n_jobs=1, time_budget=0.35) as client:
        start = time.monotonic()
        results = client.run(_requests(20))
        took = time.monotonic() - start
    asked = len(server.requests)
    assert 1 <= asked <= 5 and took < 3
    assert [r.status for r in results] == ["ok"] * asked + ["not_asked"] * (20 - asked)
    assert client.stats["over_budget"] == 20 - asked and client.stats["failed"] == 0


def test_client_progress_counts_answered_cached_failed(tmp_path):
    import io
    stream = io.StringIO()
    with ChatServer(_echo, faults={3: "empty"}) as server:
        with _client(server, tmp_path, n_jobs=1) as client:
            client.run(_requests(2))
        with _client(server, tmp_path, n_jobs=1) as client:
            client.run(_requests(4), progress=ChatProgress(4, stream, interval=0))
    assert stream.getvalue().splitlines()[-1] == "ask: 4/4 done (answered 1, cached 2, failed 1, retried 0)"


def test_client_api_key_sent_as_bearer_and_never_written(tmp_path, monkeypatch):
    key = "sk-tealeaves-secret-0123456789"
    monkeypatch.setenv("TEALEAVES_TEST_KEY", key)
    echoing = lambda n, body: {2: ("text", f"not json, key {key}"), 3: 500, 4: "empty"}.get(n)  # noqa: E731
    import io
    stream = io.StringIO()
    with ChatServer(_echo, faults=echoing) as server:
        client = ChatClient(server.url, "test-model", cache=tmp_path / "answers.sqlite",
                            api_key_env="TEALEAVES_TEST_KEY", n_jobs=1, **FAST)
        results = client.run(_requests(4), progress=ChatProgress(4, stream, interval=0))
        seen = [repr(client), str(vars(client)), str(client.stats), repr(results), stream.getvalue()]
        written = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())  # with the WAL
        client.close()
    assert all(h["Authorization"] == f"Bearer {key}" for h in server.headers)
    assert results[1].status == "failed"
    written += b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    assert key.encode() not in written and b"sk-tealeaves" not in written
    assert not any(key in text for text in seen)
    with sqlite3.connect(tmp_path / "answers.sqlite") as db:  # the echoed key was stored as ***
        assert "key ***" in db.execute("SELECT raw FROM answers WHERE status='failed'").fetchone()[0]


_CHILD = textwrap.dedent("""
    import sys
    from tealeaves.human.llm import ChatClient, ChatRequest
    url, cache, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    reqs = [ChatRequest(("v1", f"item/{i}", 0), ({"role": "user", "content": f"item {i}"},))
            for i in range(n)]
    client = ChatClient(url, "test-model", cache=cache, api_key_env=None, n_jobs=1, timeout=60)
    try:
        results = client.run(reqs)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(130)
    print(sum(r.status == "ok" for r in results))
""")


def _child(server: ChatServer, cache: Path, n: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    return subprocess.Popen([sys.executable, "-c", _CHILD, server.url, str(cache), str(n)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for(server: ChatServer, n: int, seconds: float = 30.0) -> None:
    end = time.monotonic() + seconds
    while len(server.requests) < n:
        assert time.monotonic() < end, f"the server received {len(server.requests)} requests, not {n}"
        time.sleep(0.01)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["killed", "interrupted"])
def test_client_killed_run_resumes_without_loss_or_double_answer(tmp_path, sig):
    # The 6th request hangs: when it arrives, answers 1-5 were received and (one worker) committed.
    cache, n = tmp_path / "answers.sqlite", 12
    with ChatServer(_echo, faults={6: "hang"}) as server:
        child = _child(server, cache, n)
        _wait_for(server, 6)
        start = time.monotonic()
        child.send_signal(sig)
        out, err = child.communicate(timeout=30)
        if sig == signal.SIGINT:  # a clean, prompt exit although a request is in flight (timeout 60 s)
            assert child.returncode == 130 and out.strip() == "interrupted" and time.monotonic() - start < 5
            assert "Traceback" not in err
        else:
            assert child.returncode == -signal.SIGKILL
        with ChatCache(cache) as kept:
            assert kept.counts() == {"ok": 5, "failed": 0}
        with ChatClient(server.url, "test-model", cache=cache, api_key_env=None, **FAST) as client:
            results = client.run(_requests(n))
        assert [r.text for r in results] == [f"ITEM {i}" for i in range(n)]
        assert [r.cached for r in results] == [True] * 5 + [False] * 7
        answered = [_item(b) for b in server.answered]
        assert sorted(answered) == sorted(f"item {i}" for i in range(n))  # each answered exactly once
        assert len(server.requests) == n + 1  # and the one left hanging by the kill asked again


def test_client_cache_rows_hold_the_request_without_the_key(tmp_path):
    with ChatServer(_echo) as server, _client(server, tmp_path) as client:
        client.run(_requests(2))
    with sqlite3.connect(tmp_path / "answers.sqlite") as db:
        rows = db.execute("SELECT endpoint, model, key, request, status, text, attempts FROM answers "
                          "ORDER BY key").fetchall()
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert [(r[0], r[1], json.loads(r[2]), r[4], r[5], r[6]) for r in rows] == [
        (server.url, "test-model", ["v1", f"item/{i}", 0], "ok", f"ITEM {i}", 1) for i in range(2)]
    assert json.loads(rows[0][3]) == _requests(1)[0].body("test-model")


def test_client_error_in_a_200_response_fails_the_item_with_its_message(tmp_path):
    error = '{"error": {"message": "the context is too long"}}'
    with ChatServer(_echo, faults={1: ("text", error)}) as server, \
            _client(server, tmp_path, n_jobs=1) as client:
        results = client.run(_requests(2))
    assert results[0].status == "failed" and "the context is too long" in results[0].error
    assert results[1].status == "ok"


def test_client_answer_holding_the_key_is_not_kept(tmp_path, monkeypatch):
    key = "sk-echoed-into-the-answer-42"
    monkeypatch.setenv("TEALEAVES_TEST_KEY", key)
    with ChatServer(lambda body: f"your key is {key}") as server, \
            ChatClient(server.url, "test-model", cache=tmp_path / "a.sqlite",
                       api_key_env="TEALEAVES_TEST_KEY", **FAST) as client:
        [result] = client.run(_requests(1))
    assert result.status == "failed" and result.error == "the answer holds the API key, so it is not kept"
    assert key.encode() not in b"".join(p.read_bytes() for p in tmp_path.iterdir())


def test_client_stats_add_up_to_the_requests(tmp_path):
    faults = {2: "empty", 3: 500, 4: 500}
    with ChatServer(_echo, faults=faults) as server:
        with _client(server, tmp_path, n_jobs=1, max_requests=2) as client:
            client.run(_requests(3))
        with _client(server, tmp_path, n_jobs=1, max_retries=1, max_requests=3) as client:
            results = client.run(_requests(6))
    stats = client.stats
    assert stats["cached"] + stats["answered"] + stats["failed"] + stats["not_asked"] == stats["total"] == 6
    # run 1 (2 items): item 0 answered, item 1 empty (failed).  Run 2 (3 items at most): item 0 from
    # the cache; item 1 asked again (requests 3 and 4 answer 500: failed after 1 retry); items 2
    # and 3 answered; items 4 and 5 not asked
    assert [r.status for r in results] == ["ok", "failed", "ok", "ok", "not_asked", "not_asked"]
    assert [r.cached for r in results] == [True, False, False, False, False, False]
    assert results[1].error == "HTTP 500 after 1 retry"
    assert stats["sent"] == len(server.requests) - 2 == 4 and stats["retried"] == 1
    assert (stats["asked"], stats["over_budget"], stats["failed"]) == (3, 2, 1)


@pytest.mark.parametrize(("header", "seconds"), [
    ("2", 2.0), ("0.5", 0.5), ("-3", 0.0), ("soon", None), ("", None), ("99999", 600.0), ("nan", None),
])
def test_client_retry_after_read_as_seconds(header, seconds):
    from tealeaves.human.llm._http import retry_after as _retry_after
    assert _retry_after(header) == seconds


def test_client_retry_after_read_as_an_http_date():
    from email.utils import formatdate

    from tealeaves.human.llm._http import retry_after as _retry_after
    assert 8 <= _retry_after(formatdate(time.time() + 10, usegmt=True)) <= 10


def test_client_time_budget_cuts_retries_short_as_not_asked(tmp_path):
    # every request answers 429 asking for 5 s: the retry would start past the 1 s budget
    with ChatServer(_echo, faults=lambda n, body: (429, "5")) as server, \
            _client(server, tmp_path, n_jobs=1, time_budget=1.0) as client:
        start = time.monotonic()
        results = client.run(_requests(2))
        took = time.monotonic() - start
    assert took < 1.0 and len(server.requests) == 2
    assert [(r.status, r.attempts) for r in results] == [("not_asked", 1)] * 2
    assert results[0].error == "time budget of 1 s reached after 1 attempt (HTTP 429)"
    assert client.stats["failed"] == 0 and client.stats["over_budget"] == 2
    with ChatCache(tmp_path / "answers.sqlite") as cache:
        assert cache.counts() == {"ok": 0, "failed": 0}  # nothing stored: the next run asks both
