"""Shared test fixtures: data location and a disk cache for expensive objects.

Expensive objects (parsed Reuters, fitted models) are built once per test run
and shared between pytest-xdist workers through a pickle cache guarded by a
file lock, in ``$TEALEAVES_TEST_CACHE`` (default ``.cache/tests`` in the repo).
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import pickle
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest

from tealeaves import data
from tealeaves.cli import main as cli_main

T = TypeVar("T")
REPO = Path(__file__).resolve().parent.parent
CACHE_DIR = Path(os.environ.get("TEALEAVES_TEST_CACHE", REPO / ".cache" / "tests"))

#: Tests never download data: a missing file skips the test (see require_data); tests of the fetch
#: itself lift this with monkeypatch and serve the files from 127.0.0.1.
os.environ["TEALEAVES_NO_FETCH"] = "1"

#: Set TEALEAVES_FULL=1 to run slow reproductions at full size instead of the reduced CI size.
FULL = os.environ.get("TEALEAVES_FULL") == "1"

#: The one line a command interrupted by Ctrl-C ends with (test_interrupts.py, test_interrupt_deferral.py).
INTERRUPT_MESSAGE = "tealeaves: error: interrupted (Ctrl-C); nothing was left half-written"


def as_from_a_terminal() -> None:
    """``preexec_fn`` of a command that a test will interrupt: SIGINT at its default disposition, as a
    shell starts a command.  A process that starts with SIGINT ignored keeps it ignored (Python then
    installs no KeyboardInterrupt handler), and a test process can inherit that from whatever started
    it: a CI run saw every command of tests/test_interrupts.py ignore the signal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def disk_cached(name: str, build: Callable[[], T]) -> T:
    """Return the object cached under ``name``, building (and caching) it if absent.

    Safe across processes: the first process builds while others wait on the lock.
    """
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    path = CACHE_DIR / f"{name}.pkl"
    with open(CACHE_DIR / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if path.exists():
            with open(path, "rb") as fh:
                return pickle.load(fh)
        obj = build()
        tmp = path.with_suffix(".tmp")
        with open(tmp, "wb") as fh:
            pickle.dump(obj, fh, protocol=pickle.HIGHEST_PROTOCOL)
        tmp.replace(path)
        return obj


def require_data(relative: str) -> Path:
    """Return the data path, or skip the calling test naming the missing file."""
    try:
        return data.locate(relative)
    except data.DataNotFoundError as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def reuters():
    """``(train, test, preprocessor)``: Reuters-21578 ModApte under the default recipe.

    Built once per run and cached on disk; the key carries a digest of
    ``REUTERS_RECIPE`` so a change of the default recipe rebuilds it.
    Skips when the Reuters files are absent.
    """
    require_data("reuters21578/reut2-000.sgm")
    from tealeaves.corpus.reuters import load_reuters_modapte, recipe_digest

    return disk_cached(f"reuters_modapte_v1_{recipe_digest()}", load_reuters_modapte)


@pytest.fixture(scope="session")
def reuters_lda(reuters):
    """A function ``k -> SklearnLDA`` fitted on the Reuters training stories, cached on disk.

    Uses the reproduction's default settings (``tealeaves.reproduce.reuters.lda_params``,
    ``random_state=0``); pass ``quick=True`` for the reduced CI settings.  The cache key
    carries K, the settings, the scikit-learn version and a fingerprint of the corpus.
    """
    from tealeaves.reproduce.reuters import fit_reuters_models, lda_params, model_key

    train = reuters[0]

    def get(k: int, quick: bool = False):
        key = model_key(k, lda_params(0, quick), train)
        return disk_cached(key, lambda: fit_reuters_models([k], quick=quick, use_cache=False, train=train,
                                                           progress=None)[k])

    return get


# ------------------------------------------------------------------------------------------------
# the bad-input harness (tests/bad_inputs/): run the CLI in-process and assert the exact outcome
# ------------------------------------------------------------------------------------------------
@dataclass
class CliRun:
    """The outcome of one in-process ``tealeaves`` invocation."""

    code: int
    out: str
    err: str


#: ``TEALEAVES_CLI_SUBPROCESS=1``: every ``run_cli`` in a subprocess (but tests marked ``cli_in_process``).
CLI_SUBPROCESS = os.environ.get("TEALEAVES_CLI_SUBPROCESS") == "1"


def run_cli_subprocess(argv: Sequence[str]) -> CliRun:
    """Run ``python -m tealeaves argv`` in a subprocess (this checkout's ``src`` first on its path)."""
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in [str(REPO / "src"),
                                                                    os.environ.get("PYTHONPATH", "")] if p)}
    env.pop("TEALEAVES_DEBUG", None)
    run = subprocess.run([sys.executable, "-m", "tealeaves", *map(str, argv)], env=env, capture_output=True,
                         text=True, timeout=900)
    return CliRun(run.returncode, run.stdout, run.stderr)


@pytest.fixture
def run_cli(capsys, monkeypatch, request):
    """``run_cli(argv) -> CliRun``: run ``tealeaves argv``, capturing its output and asserting no traceback.

    In this process by default; in a subprocess (:func:`run_cli_subprocess`: the exit status and the
    output as a user sees them) for tests marked ``cli_subprocess``, and for every test with
    ``TEALEAVES_CLI_SUBPROCESS=1`` except those marked ``cli_in_process`` (they change the library in
    process, e.g. with ``monkeypatch``).
    """
    monkeypatch.delenv("TEALEAVES_DEBUG", raising=False)
    node = request.node
    apart = node.get_closest_marker("cli_subprocess") is not None or (
        CLI_SUBPROCESS and node.get_closest_marker("cli_in_process") is None)

    def run(argv: Sequence[str]) -> CliRun:
        if apart:
            result = run_cli_subprocess(argv)
            assert "Traceback" not in result.err, result.err
            return result
        try:
            code = cli_main([str(a) for a in argv])
        except SystemExit as exc:  # argparse --help/usage errors exit through SystemExit
            code = exc.code if isinstance(exc.code, int) else 1
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err, captured.err
        return CliRun(int(code), captured.out, captured.err)

    return run


@pytest.fixture
def cli_error(run_cli):
    """``cli_error(argv, fragment, code=1, progress=False)``: assert a clean failure with ``fragment`` in the
    message: exactly one error line, the last; earlier lines are warnings (or, with ``progress=True``,
    a long command's progress lines)."""

    def check(argv: Sequence[str], fragment: str, code: int = 1, progress: bool = False) -> CliRun:
        result = run_cli(argv)
        assert result.code == code, (result.code, result.err)
        lines = result.err.splitlines()
        assert lines and lines[-1].startswith("tealeaves: error: "), result.err  # one error line, last
        before = [ln for ln in lines[:-1] if not ln.startswith("tealeaves: warning: ")]
        assert not before or (progress and not any("tealeaves: error" in ln for ln in before)), result.err
        assert fragment.lower() in result.err.lower(), result.err
        assert "internal error" not in result.err, result.err
        return result

    return check


# ------------------------------------------------------------------------------------------------
# small inputs shared by several bad-input files (tests/bad_inputs/)
# ------------------------------------------------------------------------------------------------
#: A small corpus of two themes (animals on a mat, the sky): 32 documents, one per line of a file.
DOCS = ["cat dog mat cat", "dog mat rug", "sun moon star", "moon star sky sun", "cat rug mat", "sky sun star",
        "cat dog", "moon sky"] * 4
#: Two topics over :data:`DOCS`.
TOPICS = [["cat", "dog", "mat"], ["sun", "moon", "star"]]
#: Five aligned English-Swedish tuples (JSON Lines rows of ``index build-aligned`` and ``pltm fit``).
ROWS = [{"id": f"d{i}", "en": "the cat sat on the mat dog", "sv": "katten satt på mattan hund"}
        for i in range(5)]
#: JSON nested 100,000 levels deep: deeper than Python's recursion limit.
DEEP = "[" * 100_000 + "]" * 100_000


def write_text(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` as UTF-8, line ends as given; return ``path``."""
    path.write_text(text, encoding="utf-8", newline="")
    return path


def write_jsonl(path: Path, rows) -> Path:
    """Write ``rows`` to ``path`` as JSON Lines (non-ASCII as it is); return ``path``."""
    return write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


def write_tuples(tmp_path: Path, rows=ROWS, name: str = "t.jsonl") -> Path:
    """Write aligned tuples (default :data:`ROWS`) as JSON Lines to ``tmp_path / name``; return the path."""
    return write_jsonl(tmp_path / name, rows)


def write_topics(tmp_path: Path) -> Path:
    """Write :data:`TOPICS` as a topics file (one topic a line) to ``tmp_path / "topics.txt"``."""
    return write_text(tmp_path / "topics.txt", "".join(" ".join(t) + "\n" for t in TOPICS))


def brute_npmi_pair(docs: list[set], a: str, b: str) -> float:
    """Document-co-occurrence NPMI of words ``a`` and ``b`` over document sets (never together: -1)."""
    n = len(docs)
    pa, pb, pab = (sum(a in d for d in docs) / n, sum(b in d for d in docs) / n,
                   sum(a in d and b in d for d in docs) / n)
    return -1.0 if pab == 0 else 1.0 if pab == 1 else math.log(pab / (pa * pb)) / -math.log(pab)


# --------------------------------------------------------------------------- a chat-completions server


class ChatServer:
    """A local OpenAI-compatible chat-completions server for the tests of ``tealeaves.human.llm``.

    ``with ChatServer(responder) as server:`` serves ``POST {server.url}/chat/completions`` on
    127.0.0.1 (a free port) until the block ends; ``server.url`` ends with ``/v1``.  Each request's
    JSON body is appended to ``server.requests`` and its headers (a dict) to ``server.headers``;
    a body answered with 200 and a usable answer is appended to ``server.answered`` too.
    ``responder(body) -> str`` gives the assistant's text.  ``server.max_in_flight`` is the most
    requests handled at once.

    ``faults`` scripts failures: a mapping of request number (1 = the first received) to a fault,
    or a callable ``faults(number, body) -> fault or None``.  A fault is
    ``429`` or ``(429, retry_after)`` (with a ``Retry-After`` header, ``"0"`` by default); any
    other HTTP status as an int (``500``, ``503``, ``400``; ``401``/``403`` say the key is wrong,
    ``404`` that the model does not exist, naming it); ``("sleep", seconds)`` (answer after
    sleeping, past a client's timeout); ``"hang"`` (never answer); ``"malformed"`` (200, a body
    that is not JSON); ``"nochoices"`` (200, ``{}``); ``"empty"`` (200, an empty content);
    ``"reset"`` (close the connection without an answer); ``("text", s)`` (200 with body ``s``);
    ``("http", status, s)`` (that status with body ``s``).
    ``delay`` seconds are slept before every answer.
    """

    def __init__(self, responder=None, faults=None, delay: float = 0.0):
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.responder = responder or (lambda body: "ok")
        self.faults = faults or {}
        self.delay = delay
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.answered: list[dict] = []
        self.in_flight = self.max_in_flight = 0
        self.lock = threading.Lock()
        self.release = threading.Event()  # set on exit: hung requests end
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):  # noqa: N802
                with outer.lock:
                    outer.in_flight += 1
                    outer.max_in_flight = max(outer.max_in_flight, outer.in_flight)
                try:
                    outer._handle(self)
                finally:
                    with outer.lock:
                        outer.in_flight -= 1

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self.release.set()
        self._server.shutdown()
        self._server.server_close()

    def _fault(self, number: int, body: dict):
        if callable(self.faults):
            return self.faults(number, body)
        return self.faults.get(number)

    def _handle(self, handler) -> None:
        import time

        length = int(handler.headers.get("Content-Length", 0))
        raw = handler.rfile.read(length)
        if handler.path.rstrip("/") != "/v1/chat/completions":
            self._send(handler, 404, json.dumps({"error": {"message": f"no route {handler.path}"}}))
            return
        body = json.loads(raw)
        with self.lock:
            self.requests.append(body)
            self.headers.append(dict(handler.headers.items()))
            number = len(self.requests)
        fault = self._fault(number, body)
        if self.delay:
            time.sleep(self.delay)
        if fault is None or (isinstance(fault, tuple) and fault[0] == "sleep"):
            if fault is not None:
                self.release.wait(fault[1])
            self._answer(handler, body, self.responder(body))
        elif fault == "hang":
            self.release.wait(600)
        elif fault == "reset":
            handler.close_connection = True
            handler.connection.shutdown(2)
        elif fault == 429 or (isinstance(fault, tuple) and fault[0] == 429):
            after = fault[1] if isinstance(fault, tuple) else "0"
            self._send(handler, 429, json.dumps({"error": {"message": "rate limited"}}),
                       {"Retry-After": str(after)})
        elif fault in (401, 403):
            self._send(handler, fault, json.dumps({"error": {"message": "Incorrect API key provided",
                                                             "code": "invalid_api_key"}}))
        elif fault == 404:
            self._send(handler, 404, json.dumps({"error": {
                "message": f"The model `{body.get('model')}` does not exist", "code": "model_not_found"}}))
        elif isinstance(fault, int):
            self._send(handler, fault, json.dumps({"error": {"message": f"error {fault}"}}))
        elif fault == "malformed":
            self._send(handler, 200, '{"choices": [{"message": {"content": "trunc')
        elif fault == "nochoices":
            self._send(handler, 200, "{}")
        elif fault == "empty":
            self._answer(handler, body, "")
        elif isinstance(fault, tuple) and fault[0] == "text":
            self._send(handler, 200, fault[1])
        elif isinstance(fault, tuple) and fault[0] == "http":
            self._send(handler, fault[1], fault[2])
        else:
            raise ValueError(f"unknown fault {fault!r}")

    def _answer(self, handler, body: dict, text: str) -> None:
        if text:
            with self.lock:
                self.answered.append(body)
        self._send(handler, 200, json.dumps({
            "id": "chatcmpl-test", "object": "chat.completion", "model": body.get("model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": "stop"}]}))

    @staticmethod
    def _send(handler, status: int, text: str, headers: dict | None = None) -> None:
        data = text.encode("utf-8")
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
            pass
