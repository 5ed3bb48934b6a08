"""The transport to a language model: OpenAI-compatible chat completions, exactly once, resumable, bounded.

:class:`ChatClient` sends each :class:`ChatRequest` to ``POST {endpoint}/chat/completions`` (the
interface of hosted APIs and of local servers such as llama.cpp's server, vLLM and Ollama) and
returns one :class:`ChatResult` per request, the answer being ``choices[0].message.content``.

* **Exactly once, resumable.**  Every answer is committed to the cache (:mod:`.cache`) as it
  arrives; a request already answered in the cache is not sent again, so a killed run loses
  nothing and a rerun asks only what is missing.  A request that failed after its retries is
  cached as ``failed`` with its reason and is asked again by the next run.
* **Bounded.**  ``n_jobs`` requests at once, at most ``requests_per_minute`` started per minute
  (retries included), at most ``max_requests`` items asked, no request started after
  ``time_budget`` seconds: what is not asked is reported as ``not_asked``, not as failed.
* **Retries** with exponential backoff and jitter after a 429 (honouring ``Retry-After``), a 5xx, a
  timeout or a dropped connection; never after 400, 401, 403 or 404.
* **One clear error per run** (:class:`~tealeaves.errors.EndpointError` and its subclasses) for
  an unreachable endpoint, a refused key, a model the endpoint does not serve; an answer that
  is malformed JSON, lacks ``choices`` or is empty fails that item alone, with its reason.
* **The API key** is read from the environment variable ``api_key_env`` when each request is
  sent, sent as ``Authorization: Bearer ...``, and never kept on the client, written to the cache,
  a log or a message (a server's error text is cleaned of it).

Only the standard library is used: :mod:`urllib.request` for HTTP, daemon threads for the
concurrent requests (so Ctrl-C ends a run at once instead of waiting for requests in flight),
:mod:`sqlite3` for the cache.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import os
import random
import socket
import ssl
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TextIO
from urllib.parse import urlsplit

from tealeaves._params import check_params, declare
from tealeaves._progress import Progress
from tealeaves.errors import (
    ChatCacheError,
    EndpointAuthError,
    EndpointError,
    EndpointModelError,
    ParameterError,
    naming,
)
from tealeaves.human.llm import params as P
from tealeaves.human.llm.cache import CachedAnswer, ChatCache

OK, FAILED, NOT_ASKED = "ok", "failed", "not_asked"
#: A response longer than this is not read (an item failure).
MAX_RESPONSE_BYTES = 16 * 1024 * 1024
#: The longest wait a ``Retry-After`` header may ask for.
MAX_RETRY_AFTER = 600.0
#: The longest piece of a server's error text quoted in a message.
QUOTE = 300

PARAMS = declare(P.ENDPOINT, P.MODEL, P.CACHE, P.API_KEY_ENV, P.N_JOBS, P.REQUESTS_PER_MINUTE,
                 P.MAX_REQUESTS, P.TIME_BUDGET, P.TIMEOUT, P.MAX_RETRIES, P.BACKOFF)


@dataclass(frozen=True)
class ChatRequest:
    """One question to the model.

    Parameters
    ----------
    key : tuple
        Its cache identity, e.g. ``(prompt_version, item_id, sample)``, of JSON scalars (text,
        numbers, booleans, ``None``); the client adds the endpoint and the model.
    messages : tuple of dict
        The conversation: ``({"role": "system" | "user" | "assistant", "content": text}, ...)``.
    temperature : float
        The sampling temperature (>= 0).
    seed : int, optional
        The sampling seed, for endpoints that honour one (sent only when given).
    max_tokens : int, optional
        The longest answer in tokens (sent only when given).
    """

    key: tuple
    messages: tuple
    temperature: float = 0.0
    seed: int | None = None
    max_tokens: int | None = None

    def body(self, model: str) -> dict:
        """The JSON body of the chat-completions request.

        Parameters
        ----------
        model : str
            The model's name.

        Returns
        -------
        dict
            ``{"model", "messages", "temperature"}``, with ``"seed"`` and ``"max_tokens"`` when set.
        """
        body = {"model": model, "messages": [dict(m) for m in self.messages],
                "temperature": self.temperature}
        if self.seed is not None:
            body["seed"] = self.seed
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        return body


@dataclass(frozen=True)
class ChatResult:
    """The outcome of one :class:`ChatRequest`.

    Parameters
    ----------
    key : tuple
        The request's key.
    text : str or None
        The answer (``choices[0].message.content``); ``None`` unless ``status`` is ``"ok"``.
    status : str
        ``"ok"``; ``"failed"`` (after its retries, or an unusable response: see ``error``);
        ``"not_asked"`` (over ``max_requests`` or ``time_budget``, or the run stopped early).
    error : str or None
        Why it failed or was not asked (``HTTP 500 after 5 retries``, ``malformed JSON ...``).
    attempts : int
        HTTP requests sent for it (0 when cached or not asked).
    cached : bool
        True when it came from the cache (no request sent).
    created : str
        ISO-8601 UTC time the response was received (empty when not asked).
    """

    key: tuple
    text: str | None
    status: str
    error: str | None
    attempts: int
    cached: bool
    created: str


class ChatProgress(Progress):
    """Progress of a run: items answered, taken from the cache, failed, of the total.

    Parameters
    ----------
    total : int
        The number of requests.
    stream : TextIO, optional
        Where reports go (standard error by default).
    interval : float
        Least seconds between two reports.
    """

    def __init__(self, total: int, stream: TextIO | None = None, interval: float = 1.0):
        super().__init__(sys.stderr if stream is None else stream, interval)
        self.total = total

    def text(self, stats: dict) -> str:
        """One report.

        Parameters
        ----------
        stats : dict
            :attr:`ChatClient.stats`.

        Returns
        -------
        str
            ``ask: 12/40 done (answered 8, cached 3, failed 1, retried 2)``.
        """
        done = stats["answered"] + stats["cached"] + stats["failed"] + stats["not_asked"]
        return (f"ask: {done}/{self.total} done (answered {stats['answered']}, cached {stats['cached']}, "
                f"failed {stats['failed']}, retried {stats['retried']})")

    def update(self, stats: dict, force: bool = False) -> None:
        """Report ``stats`` if a report is due.

        Parameters
        ----------
        stats : dict
            :attr:`ChatClient.stats`.
        force : bool
            Report whatever the time.
        """
        if self.due(force=force):
            if self.tty:
                self.redraw(self.text(stats) + "   ")
            else:
                self.line(self.text(stats))

    def finish(self, stats: dict) -> None:
        """The last report.

        Parameters
        ----------
        stats : dict
            :attr:`ChatClient.stats`.
        """
        self.update(stats, force=True)
        if self.tty:
            self.write("\n")


def check_endpoint(endpoint: object) -> str:
    """The endpoint's base URL, checked: http or https with a host, no credentials, query or fragment.

    Parameters
    ----------
    endpoint : object
        The base URL of an OpenAI-compatible API (``http://127.0.0.1:8080/v1``).

    Returns
    -------
    str
        The URL without trailing ``/``.

    Raises
    ------
    ParameterError
        For anything else.

    Examples
    --------
    >>> check_endpoint("http://127.0.0.1:8080/v1/")
    'http://127.0.0.1:8080/v1'
    """
    url = P.ENDPOINT.check(endpoint).strip()
    fix = "give the base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:8080/v1"
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise naming(ParameterError(f"endpoint {url!r} is not a URL ({exc})", fix=fix), "endpoint") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise naming(ParameterError(f"endpoint {url!r} is not an http:// or https:// URL with a host",
                                    fix=fix), "endpoint")
    if parts.username is not None or parts.password is not None:
        raise naming(ParameterError("endpoint holds a user name or password",
                                    fix="give the key in the environment variable named by `api_key_env`"),
                     "endpoint")
    if parts.query or parts.fragment or any(c.isspace() for c in url) or port == 0:
        raise naming(ParameterError(f"endpoint {url!r} has a query, a fragment, a space or port 0", fix=fix),
                     "endpoint")
    return url.rstrip("/")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _check_key(key: object) -> tuple:
    if not isinstance(key, tuple) or not key:
        raise ParameterError(f"a request's key must be a non-empty tuple, got {key!r}")
    for part in key:
        if not (part is None or isinstance(part, (str, bool, int))
                or (isinstance(part, float) and part == part and abs(part) != float("inf"))):
            raise ParameterError(f"request key {key!r} holds {part!r}",
                                 fix="make each part of a key text, a whole number, a finite number, "
                                 "a boolean or None")
    return key


def _check_requests(requests: Sequence[ChatRequest]) -> list[ChatRequest]:
    requests = list(requests)
    seen: set = set()
    for req in requests:
        if not isinstance(req, ChatRequest):
            raise ParameterError(f"requests must be ChatRequest objects, got {type(req).__name__}")
        key = _check_key(req.key)
        if key in seen:
            raise ParameterError(f"request key {key!r} is given twice", fix="give each request its own key")
        seen.add(key)
        if not req.messages or not all(isinstance(m, dict) and isinstance(m.get("role"), str)
                                       and isinstance(m.get("content"), str) for m in req.messages):
            raise ParameterError(f"request {key!r}: messages must be a non-empty tuple of "
                                 "{'role': str, 'content': str} dicts")
    return requests


class _Fatal(Exception):
    """Carries the one error that ends a run (raised by a worker, re-raised by :meth:`ChatClient.run`)."""


class _Retry(Exception):
    """A response or failure worth another attempt; ``wait`` is a ``Retry-After`` (or ``None``)."""

    def __init__(self, reason: str, wait: float | None = None):
        super().__init__(reason)
        self.reason, self.wait = reason, wait


class _ItemFailure(Exception):
    """A response that fails this item alone (no retry); ``raw`` is the response text."""

    def __init__(self, reason: str, raw: str | None = None):
        super().__init__(reason)
        self.reason, self.raw = reason, raw


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are refused: the key would follow a POST to wherever the server points."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: D102
        return None


def _retry_after(value: str | None) -> float | None:
    """Seconds asked by a ``Retry-After`` header (a number of seconds or an HTTP date), capped."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
    if seconds != seconds:
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER)


class _Pacer:
    """Spaces the starts of requests ``60 / requests_per_minute`` seconds apart, across threads."""

    def __init__(self, per_minute: float | None):
        self.gap = 60.0 / per_minute if per_minute else 0.0
        self.next = time.monotonic()
        self.lock = threading.Lock()

    def slot(self) -> float:
        """The monotonic time at which the caller may start its request (reserved for it)."""
        with self.lock:
            start = max(time.monotonic(), self.next)
            self.next = start + self.gap
            return start


class ChatClient:
    """Ask an OpenAI-compatible chat-completions endpoint, exactly once per request, within bounds.

    Parameters
    ----------
    endpoint : str
        The API's base URL, ``http://`` or ``https://`` (``http://127.0.0.1:8080/v1``); requests go
        to ``{endpoint}/chat/completions``.
    model : str
        The model's name as the endpoint knows it.
    cache : str or os.PathLike
        The SQLite file of answers (:mod:`tealeaves.human.llm.cache`), created when missing.
    api_key_env : str or None
        The environment variable holding the API key (read when each request is sent; a variable
        that is unset or empty sends no key, as local servers expect).  ``None``: never send one.
    n_jobs : int
        Requests at once.
    requests_per_minute : float, optional
        Most requests started per minute, retries included.
    max_requests : int, optional
        Most items asked in this run (retries of an item are not counted again).
    time_budget : float, optional
        Seconds after the start of :meth:`run` past which no request starts.
    timeout : float
        Seconds a request waits for the endpoint (to connect, and for each read) before it is
        retried.
    max_retries : int
        Retries after a 429, a 5xx, a timeout or a dropped connection.
    backoff : float
        Seconds before the first retry; retry ``r`` waits ``backoff * 2**(r-1)`` times a random
        factor in [0.5, 1.5), or as long as a ``Retry-After`` asks if that is longer.

    Attributes
    ----------
    stats : dict
        Counts of the last :meth:`run`: ``total``, ``cached`` (answers taken from the cache),
        ``asked`` (items sent), ``answered``, ``failed``, ``not_asked`` (over a budget or stopped),
        ``over_budget`` (the part of ``not_asked`` due to ``max_requests`` or ``time_budget``),
        ``retried`` (retry attempts) and ``sent`` (HTTP requests in all).

    Raises
    ------
    ParameterError
        For an endpoint that is not http(s) with a host, or an argument out of range.
    ChatCacheError
        For a cache that cannot be used.
    """

    def __init__(self, endpoint: str, model: str, *, cache: str | Path,
                 api_key_env: str | None = "OPENAI_API_KEY",
                 n_jobs: int = 4, requests_per_minute: float | None = None, max_requests: int | None = None,
                 time_budget: float | None = None, timeout: float = 60.0, max_retries: int = 5,
                 backoff: float = 1.0):
        self.endpoint = check_endpoint(endpoint)
        args = check_params(PARAMS, dict(
            model=model, cache=os.fspath(cache) if isinstance(cache, os.PathLike) else cache,
            api_key_env=api_key_env, n_jobs=n_jobs, requests_per_minute=requests_per_minute,
            max_requests=max_requests, time_budget=time_budget, timeout=timeout, max_retries=max_retries,
            backoff=backoff))
        for name, value in args.items():
            setattr(self, name, value)
        self.url = self.endpoint + "/chat/completions"
        self.host = urlsplit(self.endpoint).netloc
        self.stats = self._zero_stats(0)
        self._opener = urllib.request.build_opener(_NoRedirect)
        self._cache = ChatCache(self.cache)

    def __repr__(self) -> str:
        return f"ChatClient(endpoint={self.endpoint!r}, model={self.model!r}, cache={self.cache!r})"

    def close(self) -> None:
        """Close the cache."""
        self._cache.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @staticmethod
    def _zero_stats(total: int) -> dict:
        return dict(total=total, cached=0, asked=0, answered=0, failed=0, not_asked=0, over_budget=0,
                    retried=0, sent=0)

    # ------------------------------------------------------------------ the run

    def run(self, requests: Sequence[ChatRequest], progress: ChatProgress | None = None) -> list[ChatResult]:
        """Answer every request, from the cache or from the endpoint; one result per request, in order.

        Parameters
        ----------
        requests : sequence of ChatRequest
            The questions, each with its own key.
        progress : ChatProgress, optional
            Told the counts after each result (and at the end).

        Returns
        -------
        list of ChatResult
            In the order of ``requests``.

        Raises
        ------
        EndpointError
            The endpoint is unreachable, redirects, or has no chat-completions path (raised once,
            after the requests in flight end; the answers received are kept in the cache).
        EndpointAuthError
            The endpoint refused the key (401, 403).
        EndpointModelError
            The endpoint does not serve ``model``.
        ParameterError
            For a request that is not a :class:`ChatRequest`, a key given twice or of the wrong type.
        KeyboardInterrupt
            On Ctrl-C, at once; every answer received before it is in the cache.
        """
        requests = _check_requests(requests)
        run = _Run(self, requests, progress)
        return run.go()

    # ------------------------------------------------------------------ one request

    def _headers(self) -> dict:
        headers = {"Content-Type": "application/json", "Accept": "application/json",
                   "User-Agent": "tealeaves"}
        key = self._key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _key(self) -> str:
        return os.environ.get(self.api_key_env, "") if self.api_key_env else ""

    def _clean(self, text: str) -> str:
        """``text`` with the API key (should a server echo it) replaced by ``***``."""
        key = self._key()
        return text.replace(key, "***") if key else text

    def _send(self, data: bytes) -> tuple[str, str]:
        """One HTTP request: the answer and the response text, or :class:`_Retry`, :class:`_ItemFailure`,
        :class:`_Fatal`."""
        request = urllib.request.Request(self.url, data=data, headers=self._headers(), method="POST")
        try:
            with self._opener.open(request, timeout=self.timeout) as response:
                raw = response.read(MAX_RESPONSE_BYTES + 1)
        except urllib.error.HTTPError as exc:
            raise self._http_error(exc) from None
        except urllib.error.URLError as exc:
            raise self._network_error(exc.reason) from None
        except (TimeoutError, ConnectionError, http.client.HTTPException, OSError) as exc:
            raise self._network_error(exc) from None
        if len(raw) > MAX_RESPONSE_BYTES:
            raise _ItemFailure(f"response over {MAX_RESPONSE_BYTES} bytes")
        text = self._clean(raw.decode("utf-8", errors="replace"))
        return self._parse(text), text

    def _parse(self, raw: str) -> str:
        try:
            body = json.loads(raw)
        except ValueError as exc:
            raise _ItemFailure(f"malformed JSON ({exc})", raw) from None
        try:
            content = body["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise _ItemFailure("the response has no choices[0].message.content", raw) from None
        if not isinstance(content, str):
            raise _ItemFailure(f"choices[0].message.content is {type(content).__name__}, not text", raw)
        if not content.strip():
            raise _ItemFailure("empty answer", raw)
        return content

    def _http_error(self, exc: urllib.error.HTTPError) -> Exception:
        try:
            text = self._clean(exc.read(64 * 1024).decode("utf-8", errors="replace"))
        except (OSError, http.client.HTTPException):
            text = ""
        quoted = f": {text[:QUOTE]}" if text.strip() else ""
        code = exc.code
        if code == 429 or code >= 500 or code == 408:
            after = exc.headers.get("Retry-After") if exc.headers else None
            return _Retry(f"HTTP {code}", _retry_after(after))
        if code in (401, 403):
            unset = self.api_key_env and not self._key()
            fix = (f"set the environment variable {self.api_key_env} to the endpoint's API key" if unset
                   else f"check the key in the environment variable {self.api_key_env}" if self.api_key_env
                   else "give the environment variable holding the key with `api_key_env`")
            sent = f" (no key was sent: {self.api_key_env} is not set)" if unset else ""
            return _Fatal(EndpointAuthError(f"{self.url} refused the request with HTTP {code}{sent}{quoted}",
                                            fix=fix))
        if self._names_model(text) or (code == 404 and "model" in text.lower()):
            return _Fatal(EndpointModelError(f"{self.host} does not serve the model {self.model!r} "
                                             f"(HTTP {code}{quoted})",
                                             fix="give a model the endpoint lists at "
                                             f"{self.endpoint}/models"))
        if code == 404:
            return _Fatal(EndpointError(f"{self.url} does not exist (HTTP 404{quoted})",
                                        fix="give the base URL of the OpenAI-compatible API, which usually "
                                        "ends in /v1"))
        if 300 <= code < 400:
            return _Fatal(EndpointError(f"{self.url} redirects (HTTP {code}) to "
                                        f"{exc.headers.get('Location', '?') if exc.headers else '?'}",
                                        fix="give the endpoint's final URL"))
        return _ItemFailure(f"HTTP {code}{quoted}", text or None)

    def _names_model(self, text: str) -> bool:
        lower = text.lower()
        return self.model.lower() in lower and any(
            phrase in lower for phrase in ("not found", "does not exist", "unknown model", "no such model",
                                           "model_not_found", "invalid model"))

    def _network_error(self, reason: object) -> Exception:
        if isinstance(reason, (TimeoutError, socket.timeout)):
            return _Retry("timeout")
        if isinstance(reason, ssl.SSLError):
            return _Fatal(EndpointError(f"cannot use {self.endpoint}: TLS failed ({reason})",
                                        fix="check the endpoint's certificate, or its scheme"))
        if isinstance(reason, (ConnectionRefusedError, socket.gaierror)) or isinstance(reason, str):
            what = "connection refused" if isinstance(reason, ConnectionRefusedError) else (
                f"host {urlsplit(self.endpoint).hostname!r} not found" if isinstance(reason, socket.gaierror)
                else reason)
            return _Fatal(EndpointError(f"cannot reach {self.endpoint}: {what}",
                                        fix="start the server, or check the endpoint's host and port"))
        return _Retry(f"connection failed ({type(reason).__name__}: {reason})")


class _Run:
    """One :meth:`ChatClient.run`: the queue of requests, the workers, the counts and the bounds."""

    def __init__(self, client: ChatClient, requests: list[ChatRequest], progress: ChatProgress | None):
        self.client, self.requests, self.progress = client, requests, progress
        self.results: list[ChatResult | None] = [None] * len(requests)
        self.stats = client.stats = client._zero_stats(len(requests))
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.fatal: BaseException | None = None
        self.todo: list[int] = []
        self.start = time.monotonic()
        self.deadline = None if client.time_budget is None else self.start + client.time_budget
        self.pacer = _Pacer(client.requests_per_minute)

    def go(self) -> list[ChatResult]:
        self._from_cache()
        self.todo.reverse()  # popped from the end: asked in the order given
        workers = [threading.Thread(target=self._work, daemon=True, name=f"tealeaves-chat-{i}")
                   for i in range(min(self.client.n_jobs, len(self.todo)))]
        try:
            for worker in workers:
                worker.start()
            for worker in workers:
                while worker.is_alive():
                    worker.join(0.1)  # short waits: Ctrl-C reaches the main thread at once
        except BaseException:
            self.stop.set()
            raise
        if self.fatal is not None:
            raise self.fatal
        for i, result in enumerate(self.results):
            if result is None:  # left when the run stopped early
                self._record(i, self._not_asked(self.requests[i], "the run stopped", budget=False)[0])
        if self.progress is not None:
            self.progress.finish(self.stats)
        return self.results  # type: ignore[return-value]

    def _from_cache(self) -> None:
        client = self.client
        for i, req in enumerate(self.requests):
            row = client._cache.get(client.endpoint, client.model, req.key)
            if row is not None and row.status == OK:
                if row.request != req.body(client.model):
                    raise ChatCacheError(
                        f"answer cache '{client._cache.path}' holds an answer for key {req.key!r} of "
                        f"{client.model!r} at {client.host} to a different request (other messages or "
                        "settings)",
                        fix="give the changed prompt a new version in its key, or use a new cache file")
                self._record(i, ChatResult(req.key, row.text, OK, None, 0, True, row.created))
            else:
                self.todo.append(i)

    def _next(self) -> int | None:
        with self.lock:
            return self.todo.pop() if self.todo and not self.stop.is_set() else None

    def _work(self) -> None:
        while (i := self._next()) is not None:
            try:
                result, raw = self._ask(self.requests[i])
                if result.status != NOT_ASKED:
                    self._store(result, raw, self.requests[i])
            except _Fatal as exc:
                with self.lock:
                    if self.fatal is None:
                        self.fatal = exc.args[0]
                self.stop.set()
                return
            except BaseException as exc:  # a bug, or the cache failing: end the run with it
                with self.lock:
                    if self.fatal is None:
                        self.fatal = exc
                self.stop.set()
                return
            self._record(i, result)

    def _over(self, at: float) -> bool:
        return self.deadline is not None and at > self.deadline

    def _reserve_item(self) -> bool:
        """Count one more item asked, unless ``max_requests`` is reached."""
        with self.lock:
            limit = self.client.max_requests
            if limit is not None and self.stats["asked"] >= limit:
                return False
            self.stats["asked"] += 1
            return True

    def _ask(self, req: ChatRequest) -> tuple[ChatResult, str | None]:
        client = self.client
        body = req.body(client.model)
        data = json.dumps(body, ensure_ascii=False, allow_nan=False).encode("utf-8")
        if self._over(time.monotonic()):
            return self._not_asked(req, f"time budget of {client.time_budget:g} s reached")
        if not self._reserve_item():
            return self._not_asked(req, f"max_requests ({client.max_requests}) reached")
        attempts, last = 0, ""
        while True:
            start = self.pacer.slot()
            if self._over(start):
                return self._not_asked(req, f"time budget of {client.time_budget:g} s reached"
                                       + (f" after {attempts} attempts ({last})" if attempts else ""))
            if self.stop.wait(max(0.0, start - time.monotonic())):
                return self._not_asked(req, "the run stopped", budget=False)
            attempts += 1
            with self.lock:
                self.stats["sent"] += 1
            try:
                text, raw = client._send(data)
            except _Retry as exc:
                last = exc.reason
                if attempts > client.max_retries:
                    return self._result(req, None, FAILED, f"{last} after {client.max_retries} retries",
                                        attempts, None)
                wait = client.backoff * 2 ** (attempts - 1) * random.uniform(0.5, 1.5)
                wait = max(wait, exc.wait or 0.0)
                if self._over(time.monotonic() + wait):
                    return self._not_asked(req, f"time budget of {client.time_budget:g} s reached "
                                           f"after {attempts} attempts ({last})")
                with self.lock:
                    self.stats["retried"] += 1
                if self.stop.wait(wait):
                    return self._not_asked(req, "the run stopped", budget=False)
                continue
            except _ItemFailure as exc:
                return self._result(req, None, FAILED, exc.reason, attempts, exc.raw)
            return self._result(req, text, OK, None, attempts, raw)

    def _result(self, req: ChatRequest, text: str | None, status: str, error: str | None, attempts: int,
                raw: str | None) -> tuple[ChatResult, str | None]:
        return ChatResult(req.key, text, status, error, attempts, False, _now()), raw

    def _not_asked(self, req: ChatRequest, why: str, budget: bool = True) -> tuple[ChatResult, None]:
        if budget:
            with self.lock:
                self.stats["over_budget"] += 1
        return ChatResult(req.key, None, NOT_ASKED, why, 0, False, ""), None

    def _store(self, result: ChatResult, raw: str | None, req: ChatRequest) -> None:
        client = self.client
        client._cache.put(client.endpoint, client.model, req.key, CachedAnswer(
            req.body(client.model), result.status, result.text, result.error, raw, result.attempts,
            result.created))

    def _record(self, i: int, result: ChatResult) -> None:
        with self.lock:
            self.results[i] = result
            counter = ("cached" if result.cached else "answered" if result.status == OK
                       else "failed" if result.status == FAILED else "not_asked")
            self.stats[counter] += 1
            if self.progress is not None:
                self.progress.update(self.stats)
