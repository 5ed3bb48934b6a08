"""tealeaves.human.llm.client: bad endpoints, keys, models, caches and requests give one clean error.

The transport has no command of its own (``tealeaves human ask`` is built on it and tested through
the command line in its own file); here each refusal is checked through the API: its class, its
message, that it is raised once for the run (the server counts the requests) and that it names no
key.
"""

from __future__ import annotations

import socket
import sqlite3

import pytest

from conftest import ChatServer
from tealeaves.errors import (
    ChatCacheError,
    EndpointAuthError,
    EndpointError,
    EndpointModelError,
    ParameterError,
)
from tealeaves.human.llm import ChatClient, ChatRequest

KEY = "sk-bad-inputs-secret-987"


def _requests(n: int) -> list[ChatRequest]:
    return [ChatRequest(("v1", f"item/{i}", 0), ({"role": "user", "content": f"item {i}"},))
            for i in range(n)]


def _client(url: str, tmp_path, **kw) -> ChatClient:
    return ChatClient(url, "test-model", cache=tmp_path / "answers.sqlite",
                      **{"api_key_env": None, "backoff": 0.001, "timeout": 2.0, **kw})


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize(("endpoint", "fragment"), [
    ("ftp://127.0.0.1/v1", "is not an http:// or https:// URL with a host"),
    ("127.0.0.1:8080/v1", "is not an http:// or https:// URL with a host"),
    ("http://", "is not an http:// or https:// URL with a host"),
    ("file:///etc/passwd", "is not an http:// or https:// URL with a host"),
    ("http://[::1/v1", "is not a URL"),
    ("http://127.0.0.1:99999/v1", "is not a URL"),
    ("http://user:pass@127.0.0.1/v1", "holds a user name or password"),
    ("http://127.0.0.1/v1?key=x", "has a query"),
    ("http://127.0.0.1/v1#top", "has a query or a fragment"),
    ("http://127.0.0.1/v1 x", "holds a space"),
    ("http://127.0.0.1:0/v1", "port 0"),
    ("http://127.0.0.1/v1\x1b[2J", "a control character"),
    ("http://127.0.0.1:8080/v1/chat/completions/", "is the chat-completions URL"),
    ("", "must be a non-empty string"),
    (None, "must be a non-empty string"),
])
def test_client_non_http_endpoint_refused(tmp_path, endpoint, fragment):
    with pytest.raises(ParameterError, match="endpoint") as info:
        _client(endpoint, tmp_path)
    assert fragment in str(info.value) and info.value.param in ("endpoint", ("endpoint", "api_key_env"))
    assert "user:pass" not in str(info.value) and "key=x" not in str(info.value)  # a secret is never echoed
    assert not (tmp_path / "answers.sqlite").exists()  # refused before the cache is made


def test_client_unreachable_endpoint_is_one_clean_error(tmp_path):
    with _client(f"http://127.0.0.1:{_closed_port()}/v1", tmp_path, n_jobs=1) as client, \
            pytest.raises(EndpointError, match="connection refused") as info:
        client.run(_requests(5))
    assert "start the server" in str(info.value) and client.stats["sent"] == 1


def test_client_unknown_host_is_one_clean_error(tmp_path, monkeypatch):
    def no_such_host(*args, **kwargs):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    monkeypatch.setattr(socket, "getaddrinfo", no_such_host)
    with _client("http://no-such-host.invalid/v1", tmp_path) as client, \
            pytest.raises(EndpointError, match="host 'no-such-host.invalid' not found"):
        client.run(_requests(3))


@pytest.mark.parametrize("code", [401, 403])
def test_client_wrong_key_is_one_clean_error_without_the_key(tmp_path, monkeypatch, code):
    monkeypatch.setenv("TEALEAVES_BAD_KEY", KEY)
    with ChatServer(faults=lambda n, body: code) as server, \
            _client(server.url, tmp_path, api_key_env="TEALEAVES_BAD_KEY", n_jobs=1) as client, \
            pytest.raises(EndpointAuthError, match=f"HTTP {code}") as info:
        client.run(_requests(6))
    assert len(server.requests) == 1  # once for the run, not once per item
    assert KEY not in str(info.value) and "TEALEAVES_BAD_KEY" in str(info.value)
    assert server.headers[0]["Authorization"] == f"Bearer {KEY}"


def test_client_missing_key_says_the_variable_is_unset(tmp_path, monkeypatch):
    monkeypatch.delenv("TEALEAVES_UNSET_KEY", raising=False)
    with ChatServer(faults=lambda n, body: 401) as server, \
            _client(server.url, tmp_path, api_key_env="TEALEAVES_UNSET_KEY") as client, \
            pytest.raises(EndpointAuthError, match="no key was sent: TEALEAVES_UNSET_KEY is not set"):
        client.run(_requests(1))
    assert "Authorization" not in server.headers[0]


def test_client_unknown_model_is_one_clean_error(tmp_path):
    with ChatServer(faults=lambda n, body: 404) as server, \
            _client(server.url, tmp_path, n_jobs=4) as client, \
            pytest.raises(EndpointModelError, match="does not serve the model 'test-model'") as info:
        client.run(_requests(20))
    assert "/v1/models" in str(info.value) and len(server.requests) <= 4


def test_client_model_named_in_a_400_error_is_a_model_error(tmp_path):
    ollama = '{"error": "model \\"test-model\\" not found, try pulling it first"}'
    with ChatServer(faults={1: ("http", 400, ollama)}) as server, \
            _client(server.url, tmp_path, n_jobs=1) as client, \
            pytest.raises(EndpointModelError, match="does not serve the model 'test-model'"):
        client.run(_requests(3))
    assert len(server.requests) == 1


def test_client_other_400_fails_the_item_only(tmp_path):
    with ChatServer(faults={1: ("http", 400, '{"error": "prompt too long"}')}) as server, \
            _client(server.url, tmp_path, n_jobs=1) as client:
        results = client.run(_requests(2))
    assert [r.status for r in results] == ["failed", "ok"]
    assert results[0].error == 'HTTP 400: {"error": "prompt too long"}' and len(server.requests) == 2


def test_client_wrong_path_is_an_endpoint_error(tmp_path):
    with ChatServer() as server, _client(server.url[:-3], tmp_path) as client, \
            pytest.raises(EndpointError, match="does not exist \\(HTTP 404") as info:
        client.run(_requests(2))
    assert "ends in /v1" in str(info.value) and not isinstance(info.value, EndpointModelError)


def test_client_fatal_error_keeps_the_answers_received_before_it(tmp_path):
    with ChatServer(lambda body: "yes", faults={4: 401}) as server:
        with _client(server.url, tmp_path, n_jobs=1) as client, pytest.raises(EndpointAuthError):
            client.run(_requests(8))
        server.faults = {}
        with _client(server.url, tmp_path, n_jobs=1) as client:
            results = client.run(_requests(8))
    assert [r.cached for r in results] == [True] * 3 + [False] * 5
    assert len(server.requests) == 4 + 5


def test_client_cache_that_is_a_folder_or_not_sqlite_refused(tmp_path):
    with pytest.raises(ChatCacheError, match="is a folder"):
        ChatClient("http://127.0.0.1:1/v1", "m", cache=tmp_path)
    (tmp_path / "notes.txt").write_text("hello, this is not a database\n")
    with pytest.raises(ChatCacheError, match="is not a SQLite database"):
        ChatClient("http://127.0.0.1:1/v1", "m", cache=tmp_path / "notes.txt")
    with pytest.raises(ChatCacheError, match="does not exist"):
        ChatClient("http://127.0.0.1:1/v1", "m", cache=tmp_path / "missing" / "a.sqlite")
    with sqlite3.connect(tmp_path / "other.sqlite") as db:
        db.execute("CREATE TABLE things (x)")
    with pytest.raises(ChatCacheError, match="not an answer cache of tealeaves"):
        ChatClient("http://127.0.0.1:1/v1", "m", cache=tmp_path / "other.sqlite")


def test_client_cached_answer_to_a_different_request_refused(tmp_path):
    with ChatServer() as server:
        with _client(server.url, tmp_path) as client:
            client.run(_requests(2))
        changed = [ChatRequest(r.key, r.messages, temperature=1.0) for r in _requests(2)]
        with _client(server.url, tmp_path) as client, \
                pytest.raises(ChatCacheError, match="to a different request") as info:
            client.run(changed)
    assert "new version in its key" in str(info.value) and len(server.requests) == 2


@pytest.mark.parametrize(("requests", "fragment"), [
    ([ChatRequest(("v1", "a"), ({"role": "user", "content": "x"},))] * 2, "is given twice"),
    ([ChatRequest(["v1", "a"], ({"role": "user", "content": "x"},))], "must be a non-empty tuple"),
    ([ChatRequest((), ({"role": "user", "content": "x"},))], "must be a non-empty tuple"),
    ([ChatRequest(("v1", object()), ({"role": "user", "content": "x"},))], "holds"),
    ([ChatRequest(("v1", float("nan")), ({"role": "user", "content": "x"},))], "holds nan"),
    ([ChatRequest(("v1", "a"), ())], "messages must be"),
    ([ChatRequest(("v1", "a"), ({"role": "user"},))], "messages must be"),
    (["hello"], "must be ChatRequest objects"),
    ([ChatRequest(("v1", "a"), ({"role": "user", "content": "x"},), temperature=float("nan"))],
     "temperature must be a finite number"),
    ([ChatRequest(("v1", "a"), ({"role": "user", "content": "x"},), temperature=-0.5)], "temperature must"),
    ([ChatRequest(("v1", "a"), ({"role": "user", "content": "x"},), seed=-1)], "seed must be"),
    ([ChatRequest(("v1", "a"), ({"role": "user", "content": "x"},), max_tokens=0)], "max_tokens must be"),
])
def test_client_bad_requests_refused_before_any_request(tmp_path, requests, fragment):
    with ChatServer() as server, _client(server.url, tmp_path) as client, \
            pytest.raises(ParameterError, match=fragment):
        client.run(requests)
    assert server.requests == []


@pytest.mark.parametrize(("name", "value"), [
    ("n_jobs", 0), ("timeout", 0), ("timeout", float("nan")), ("max_retries", -1), ("backoff", -1.0),
    ("requests_per_minute", 0), ("time_budget", -5), ("max_requests", -1), ("api_key_env", ""),
    ("n_jobs", 2.5),
])
def test_client_out_of_range_settings_refused(tmp_path, name, value):
    with pytest.raises(ParameterError) as info:
        _client("http://127.0.0.1:1/v1", tmp_path, **{name: value})
    assert info.value.param == name


def test_client_redirect_not_followed(tmp_path, monkeypatch):
    monkeypatch.setenv("TEALEAVES_BAD_KEY", KEY)
    with ChatServer(faults={1: ("http", 307, "")}) as server, \
            _client(server.url, tmp_path, api_key_env="TEALEAVES_BAD_KEY", n_jobs=1) as client, \
            pytest.raises(EndpointError, match="redirects \\(HTTP 307\\)") as info:
        client.run(_requests(3))
    assert "final URL" in str(info.value) and len(server.requests) == 1


def test_client_https_to_a_plain_http_server_is_one_clean_error(tmp_path):
    with ChatServer() as server, _client(server.url.replace("http://", "https://"), tmp_path) as client, \
            pytest.raises(EndpointError, match="TLS failed"):
        client.run(_requests(3))
    assert server.requests == []


def test_client_key_asked_for_without_a_key_variable_names_the_parameter(tmp_path):
    with ChatServer(faults=lambda n, body: 401) as server, _client(server.url, tmp_path) as client, \
            pytest.raises(EndpointAuthError, match="with `api_key_env`") as info:
        client.run(_requests(1))
    assert info.value.param == "api_key_env"


@pytest.mark.parametrize(("fault", "reason"), [
    (("http", 400, '{"error": "Unsupported parameter: seed"}'), "HTTP 400"),
    (500, "HTTP 500 after 1 retry"),
    ("malformed", "malformed JSON"),
])
def test_client_endpoint_refusing_every_request_stops_the_run(tmp_path, fault, reason):
    from tealeaves.human.llm.cache import ChatCache
    from tealeaves.human.llm.client import MAX_FAILURES_IN_A_ROW
    with ChatServer(faults=lambda n, body: fault) as server, \
            _client(server.url, tmp_path, n_jobs=1, max_retries=1) as client, \
            pytest.raises(EndpointError, match=f"the last {MAX_FAILURES_IN_A_ROW} requests to") as info:
        client.run(_requests(40))
    attempts = 2 if fault == 500 else 1
    assert reason in str(info.value) and len(server.requests) == MAX_FAILURES_IN_A_ROW * attempts
    with ChatCache(tmp_path / "answers.sqlite") as cache:
        assert cache.counts() == {"ok": 0, "failed": MAX_FAILURES_IN_A_ROW}  # asked again by the next run


def test_client_answers_between_refusals_keep_the_run_going(tmp_path):
    fault = lambda n, body: None if n % 5 == 0 else ("http", 400, "bad")  # noqa: E731
    with ChatServer(faults=fault) as server, _client(server.url, tmp_path, n_jobs=1) as client:
        results = client.run(_requests(30))
    assert [r.status == "ok" for r in results] == [(i + 1) % 5 == 0 for i in range(30)]
    assert len(server.requests) == 30


def test_client_server_error_page_quoted_on_one_printable_line(tmp_path):
    page = "<html>\n<body>\x1b[31mNot\tFound</body>\n</html>" + "x" * 1000
    with ChatServer(faults=lambda n, body: ("http", 404, page)) as server, \
            _client(server.url, tmp_path) as client, pytest.raises(EndpointError) as info:
        client.run(_requests(1))
    message = str(info.value)
    assert "\n" not in message and "\x1b" not in message and "<body>\\x1b[31mNot Found</body>" in message
    assert len(message) < 600


def test_client_progress_line_ended_before_the_error(tmp_path):
    import io

    from tealeaves.human.llm import ChatProgress
    stream = io.StringIO()
    stream.isatty = lambda: True  # a terminal: the report is redrawn in place
    with ChatServer(faults={3: 401}) as server, _client(server.url, tmp_path, n_jobs=1) as client, \
            pytest.raises(EndpointAuthError):
        client.run(_requests(5), progress=ChatProgress(5, stream, interval=0))
    assert stream.getvalue().endswith("ask: 2/5 done (answered 2, cached 0, failed 0, retried 0)   \n")


def test_client_body_nested_too_deeply_fails_its_item_only(tmp_path):
    """A 200 body of 100,000 nested arrays: that item fails as malformed JSON, the next is answered.
    (before: json's RecursionError escaped the transport, ending the run as an internal error.)"""
    deep = "[" * 100_000 + "]" * 100_000
    with ChatServer(lambda body: "ok", faults={1: ("text", deep)}) as server, \
            _client(server.url, tmp_path, n_jobs=1, max_retries=0) as client:
        results = client.run(_requests(2))
    assert [r.status for r in results] == ["failed", "ok"]
    assert results[0].error.startswith("malformed JSON") and len(server.requests) == 2


def test_client_cached_request_nested_too_deeply_is_a_cache_error(tmp_path):
    """A cache row whose stored request was replaced by JSON nested 100,000 deep: one ChatCacheError
    (its checksum no longer matches).  (before: RecursionError, an internal error.)"""
    with ChatServer(lambda body: "ok") as server:
        with _client(server.url, tmp_path) as client:
            client.run(_requests(1))
        with sqlite3.connect(tmp_path / "answers.sqlite") as db:
            db.execute("UPDATE answers SET request = ?", ("[" * 100_000 + "]" * 100_000,))
        with _client(server.url, tmp_path) as client, \
                pytest.raises(ChatCacheError, match="changed after it was written"):
            client.run(_requests(1))
        assert len(server.requests) == 1


@pytest.mark.parametrize("change", [
    "UPDATE answers SET text = 'B' WHERE text = 'A'",  # one answer edited: a flipped byte reads as another
    "UPDATE answers SET created = '2020-01-01T00:00:00Z'",
    "UPDATE answers SET attempts = attempts + 1",
    # two rows' answers swapped: each row is intact alone, but no longer the one its key asked for
    "UPDATE answers SET key = CASE WHEN key LIKE '%item/0%' THEN replace(key, 'item/0', 'item/1') "
    "ELSE replace(key, 'item/1', 'item/0') END",
])
def test_client_cache_row_changed_after_it_was_written_is_refused(tmp_path, change):
    answers = iter("AB")
    with ChatServer(lambda body: next(answers)) as server:
        with _client(server.url, tmp_path, n_jobs=1) as client:
            assert [r.text for r in client.run(_requests(2))] == ["A", "B"]
        with sqlite3.connect(tmp_path / "answers.sqlite") as db:
            db.execute(change)
        with _client(server.url, tmp_path) as client, \
                pytest.raises(ChatCacheError, match="changed after it was written"):
            client.run(_requests(2))
        assert len(server.requests) == 2  # nothing asked again, nothing read as an answer


def test_client_cache_file_damaged_inside_is_refused_on_open(tmp_path):
    with ChatServer(lambda body: "ok") as server:
        with _client(server.url, tmp_path) as client:
            client.run(_requests(50))
    path = tmp_path / "answers.sqlite"
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")  # the header's page size
    for start in range(page, len(data), page):  # every b-tree page header but the first page's
        data[start:start + 8] = b"\xff" * 8
    path.write_bytes(bytes(data))
    with pytest.raises(ChatCacheError, match="answer cache"):
        with _client(server.url, tmp_path) as client:
            client.run(_requests(50))
