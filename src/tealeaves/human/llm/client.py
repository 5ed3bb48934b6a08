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

import json
import os
import random
import re
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TextIO
from urllib.parse import urlsplit

from tealeaves._params import check_params, declare
from tealeaves._progress import Progress
from tealeaves.errors import ChatCacheError, ParameterError, naming
from tealeaves.human.llm import params as P
from tealeaves.human.llm._http import Endpoint, _Fatal, _ItemFailure, _Retry
from tealeaves.human.llm.cache import CachedAnswer, ChatCache
from tealeaves.validation import check_float, check_int, check_seed

#: The statuses of a :class:`ChatResult`.
OK, FAILED, NOT_ASKED = "ok", "failed", "not_asked"

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
        HTTP requests sent for it in this run (0 when cached; a ``not_asked`` item may have had
        attempts that a budget cut short, its ``error`` says so).
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
    shown = re.sub(r"//[^/?#]*@", "//***@", url).split("?")[0].split("#")[0]  # never echo a secret
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise naming(ParameterError(f"endpoint {shown!r} is not a URL ({exc})", fix=fix),
                     "endpoint") from None
    if parts.username is not None or parts.password is not None:
        raise naming(ParameterError(f"endpoint {shown!r} holds a user name or password",
                                    fix="give the key in the environment variable named by `api_key_env`"),
                     "endpoint", "api_key_env")
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise naming(ParameterError(f"endpoint {shown!r} is not an http:// or https:// URL with a host",
                                    fix=fix), "endpoint")
    if parts.query or parts.fragment or "?" in url or "#" in url:
        raise naming(ParameterError(f"endpoint {shown!r} has a query or a fragment", fix=fix), "endpoint")
    if any(c.isspace() for c in url) or port == 0:
        raise naming(ParameterError(f"endpoint {url!r} holds a space or port 0", fix=fix), "endpoint")
    return url.rstrip("/")


def _count(n: int, noun: str) -> str:
    """``1 retry``, ``2 retries``, ``1 attempt``, ``3 attempts``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun[:-1]}ies" if noun.endswith("y") else f"{n} {noun}s"


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
        _check_sampling(req)
    return requests


def _check_sampling(req: ChatRequest) -> None:
    """A request's temperature (a number >= 0), seed and max_tokens (whole numbers), when set.

    The bounds a command allows (``temperature`` at most 2, say) are its own: the transport only
    refuses what no endpoint can take.
    """
    checks = (("temperature", req.temperature, lambda v, n: check_float(v, n, min_value=0)),
              ("seed", req.seed, check_seed), ("max_tokens", req.max_tokens,
                                                lambda v, n: check_int(v, n, min_value=1)))
    for name, value, check in checks:
        if value is not None or name == "temperature":
            try:
                check(value, name)
            except ParameterError as exc:
                raise naming(exc, name) from None


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
        self._http = Endpoint(self.endpoint, self.model, self.api_key_env, self.timeout)
        self.url, self.host = self._http.url, self._http.host
        self.stats = self._zero_stats(0)
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
                                       + (f" after {_count(attempts, 'attempt')} ({last})" * bool(attempts)),
                                       attempts=attempts)
            if self.stop.wait(max(0.0, start - time.monotonic())):
                return self._not_asked(req, "the run stopped", budget=False, attempts=attempts)
            attempts += 1
            with self.lock:
                self.stats["sent"] += 1
            try:
                text, raw = client._http.send(data)
            except _Retry as exc:
                last = exc.reason
                if attempts > client.max_retries:
                    why = f"{last} after {_count(client.max_retries, 'retry')}"
                    return self._result(req, None, FAILED, why, attempts, None)
                wait = client.backoff * 2 ** (attempts - 1) * random.uniform(0.5, 1.5)
                wait = max(wait, exc.wait or 0.0)
                if self._over(time.monotonic() + wait):
                    return self._not_asked(req, f"time budget of {client.time_budget:g} s reached "
                                           f"after {_count(attempts, 'attempt')} ({last})", attempts=attempts)
                with self.lock:
                    self.stats["retried"] += 1
                if self.stop.wait(wait):
                    return self._not_asked(req, "the run stopped", budget=False, attempts=attempts)
                continue
            except _ItemFailure as exc:
                return self._result(req, None, FAILED, exc.reason, attempts, exc.raw)
            return self._result(req, text, OK, None, attempts, raw)

    def _result(self, req: ChatRequest, text: str | None, status: str, error: str | None, attempts: int,
                raw: str | None) -> tuple[ChatResult, str | None]:
        return ChatResult(req.key, text, status, error, attempts, False, _now()), raw

    def _not_asked(self, req: ChatRequest, why: str, budget: bool = True,
                   attempts: int = 0) -> tuple[ChatResult, None]:
        if budget:
            with self.lock:
                self.stats["over_budget"] += 1
        return ChatResult(req.key, None, NOT_ASKED, why, attempts, False, ""), None

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
