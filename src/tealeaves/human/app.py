"""A local web app for lab annotation studies (standard library only: http.server + sqlite3).

Routes (``TOKEN`` is an annotator's personal link token):

* ``GET /a/TOKEN`` - the annotation page (``static/index.html``);
* ``GET /static/{app.js,style.css}`` - its script and style;
* ``GET /api/TOKEN/state`` - progress and the next unanswered item (public view: no answer, no check flag);
* ``POST /api/TOKEN/judgments`` - ``{"item_id", "response", "key"[, "confidence", "time"]}``; answers
  ``{"status": "stored" | "duplicate"}`` (200), 409 if the item was already answered under another key;
* ``GET /healthz`` - ``ok``.

Every request gets a status and a JSON (or text) body, never a dropped
connection or a traceback: 400 for a malformed body (not JSON, not an
object, a missing or wrongly typed field, an unknown field, a response that
is not an option, a negative or non-finite ``time``/``confidence``), 403 for
a POST whose ``Origin``/``Host`` is not the server's own address, 404 for an
unknown path, token or item, 405 for a known path with another method, 411
without ``Content-Length``, 413 for a body above :data:`MAX_BODY` bytes, and
503 with ``Retry-After`` when the database cannot be written (disk full,
read-only, locked); the page retries a 503 with the same idempotency key.

A web framework is not needed: the app serves three static files and two
JSON routes, and ``ThreadingHTTPServer`` gives one thread per connection.
"""

from __future__ import annotations

import errno
import json
import math
import sys
from collections.abc import Sequence
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from urllib.parse import urlsplit

from tealeaves._docs import shared_doc
from tealeaves._io import loads_strict
from tealeaves._params import naming
from tealeaves._terminal import escape
from tealeaves.errors import ParameterError
from tealeaves.human.params import PORT
from tealeaves.human.results import normalize_response
from tealeaves.human.store import CONFLICT, JudgmentStore, StoreError, StoreUnavailableError
from tealeaves.human.study import Study

STATIC = {"app.js": "text/javascript; charset=utf-8", "style.css": "text/css; charset=utf-8",
          "index.html": "text/html; charset=utf-8"}
#: Largest accepted request body (bytes); larger ones are answered 413.
MAX_BODY = 64 * 1024
#: A body up to this size is read and discarded before the 413, so the client sees the reply; above
#: it the connection is closed after replying, without reading the body.
MAX_DRAIN = 1024 * 1024
#: Seconds a client is asked to wait (``Retry-After``) after a 503.
RETRY_AFTER = 2
PLATFORM = "tealeaves-app"
#: Fields of a judgment body: name -> required.
FIELDS = {"item_id": True, "response": True, "key": True, "confidence": False, "time": False}
ROUTES = {"judgments": "POST", "state": "GET"}


class _BadRequest(Exception):
    """A client error answered with ``status`` and a JSON ``{"error": ...}`` body.

    Parameters
    ----------
    status : int
        The HTTP status of the reply (4xx).
    message : str
        The error, the reply's ``error``.
    **extra
        More fields of the reply (e.g. ``options``); ``_headers`` gives reply headers instead.
    """

    def __init__(self, status: int, message: str, **extra):
        super().__init__(message)
        self.status, self.message, self.extra = status, message, extra


@shared_doc
class AnnotationApp:
    """The study, the judgment store and the per-annotator item orders behind the server.

    Creating the app binds the store to the study
    (:meth:`~tealeaves.human.store.JudgmentStore.bind_study`) and loads the static files.

    Parameters
    ----------
    %(app_study)s
    store : JudgmentStore
        Where the judgments are stored.

    Raises
    ------
    StoreError
        When the store holds judgments of another study.
    """

    def __init__(self, study: Study, store: JudgmentStore):
        self.study = study
        self.store = store
        store.bind_study(study.fingerprint, study.name)
        self._static = {name: resources.files("tealeaves.human").joinpath("static", name).read_bytes()
                        for name in STATIC}

    @shared_doc
    def state(self, annotator: str) -> dict:
        """Progress of ``annotator`` and the next item they have not answered.

        Parameters: %(annotator)s

        Returns
        -------
        dict
            ``annotator``, ``study`` (its name), ``total``, ``answered``, ``confidence`` (whether the
            study asks for it) and ``item`` (the next item's public view, None when all are answered).
        """
        done = self.store.answered(annotator)
        order = self.study.order_for(annotator)
        nxt = next((i for i in order if i not in done), None)
        return {"annotator": annotator, "study": self.study.name, "total": len(order),
                "answered": len(done & set(order)),
                "confidence": bool(self.study.settings.get("confidence")),
                "item": None if nxt is None else self.study.public_item(nxt)}

    @shared_doc
    def submit(self, annotator: str, body: object) -> tuple[int, dict]:
        """Validate and store one judgment; return the HTTP status and the JSON reply.

        Parameters
        ----------
        %(annotator)s
        body : object
            The parsed request body (:func:`parse_body`).

        Returns
        -------
        tuple of (int, dict)
            200, or 409 when the item was already answered under another key; the reply holds
            ``status`` (``stored``, ``duplicate`` or ``conflict``) and the annotator's progress.

        Raises
        ------
        _BadRequest
            For a body that is not a valid judgment, or an idempotency key used for another judgment.
        StoreUnavailableError
            When it cannot be stored.
        """
        item, response, key, confidence, seconds = self.validate(body)
        try:
            status = self.store.submit(annotator, item["id"], response, key, confidence=confidence,
                                       time=seconds, platform=PLATFORM)
        except StoreUnavailableError:
            raise
        except StoreError as exc:  # an idempotency key reused for another judgment
            raise _BadRequest(HTTPStatus.BAD_REQUEST, str(exc)) from None
        code = HTTPStatus.CONFLICT if status == CONFLICT else HTTPStatus.OK
        return code, {"status": status, **{k: v for k, v in self.state(annotator).items() if k != "item"}}

    def validate(self, body: object) -> tuple[dict, str, str, float | None, float | None]:
        """The item, response, key, confidence and time of a judgment body, or :class:`_BadRequest`.

        Parameters
        ----------
        body : object
            The parsed request body: an object with ``item_id``, ``response`` and ``key`` (8-128
            characters), and optionally ``confidence`` and ``time`` (finite numbers >= 0 or null).

        Returns
        -------
        tuple
            The study item, the response normalised to one of its options
            (:func:`~tealeaves.human.results.normalize_response`), the key, the confidence and the time.

        Raises
        ------
        _BadRequest
            400 for a malformed body, 404 for an unknown item.
        """
        bad = HTTPStatus.BAD_REQUEST
        if not isinstance(body, dict):
            raise _BadRequest(bad, f"the body must be a JSON object, found {_kind(body)}")
        unknown = sorted(set(body) - set(FIELDS))
        missing = [f for f, required in FIELDS.items() if required and body.get(f) is None]
        if unknown or missing:
            raise _BadRequest(bad, "a judgment is an object with item_id, response and key (and optionally "
                             f"confidence and time); missing {missing}, unknown {unknown[:5]}")
        if not isinstance(body["item_id"], str):
            raise _BadRequest(bad, f"item_id must be a string, found {_kind(body['item_id'])}")
        item = self.study.by_id.get(body["item_id"])
        if item is None:
            raise _BadRequest(HTTPStatus.NOT_FOUND, f"unknown item {body['item_id'][:80]!r}")
        key = body["key"]
        if not isinstance(key, str) or not 8 <= len(key) <= 128:
            raise _BadRequest(bad, "a submission needs an idempotency key (key) of 8-128 characters")
        raw = body["response"]
        if isinstance(raw, bool) or not isinstance(raw, (str, int)):
            raise _BadRequest(bad, f"response must be a string (one of the options), found {_kind(raw)}",
                             options=item["options"])
        response = normalize_response(item, raw)
        if response is None:
            raise _BadRequest(bad, f"response {str(raw)[:80]!r} is not an option", options=item["options"])
        return item, response, key, _number(body, "confidence"), _number(body, "time")

    @shared_doc
    def make_server(self, host: str = "127.0.0.1", port: int = 8000, quiet: bool = True,
                    allowed_origins: Sequence[str] = ()) -> ThreadingHTTPServer:
        """A ThreadingHTTPServer bound to ``host:port`` serving this app (port 0 picks a free port).

        ``allowed_origins`` (``scheme://host[:port]``) may post judgments besides
        the server's own address, e.g. the public origin of a reverse proxy.

        Parameters: %(app_host)s %(app_port)s %(app_quiet)s %(app_origins)s

        Returns
        -------
        http.server.ThreadingHTTPServer
            The server, not yet serving (daemon threads).

        Raises
        ------
        ParameterError
            When an origin is not one, the port is not one (0-65535), or the server cannot listen
            on ``host:port``.
        """
        app = self

        class Handler(_Handler):
            pass

        Handler.app = app
        Handler.quiet = quiet
        Handler.allowed_origins = frozenset(check_origins(allowed_origins))
        port = PORT.check(port)
        try:
            server = ThreadingHTTPServer((host, port), Handler)
        except OSError as exc:
            reason = "the address is already in use" if exc.errno == errno.EADDRINUSE else (
                exc.strerror or str(exc))
            raise naming(ParameterError(f"cannot listen on {escape(host)}:{port}: {reason}",
                                        fix="choose another `port` (`port=0` picks a free one) or `host`"),
                         "port", "host") from None
        server.daemon_threads = True
        return server


def check_origins(origins: Sequence[str]) -> list[str]:
    """Check the origins allowed to post judgments (``allowed_origins`` of :func:`serve`).

    Parameters
    ----------
    origins : sequence of str
        Each ``http(s)://host[:port]`` without a path (a trailing slash is dropped).

    Returns
    -------
    list of str
        The origins as ``scheme://host[:port]``.

    Raises
    ------
    ParameterError
        When an origin is not ``http(s)://host[:port]``.
    """
    out = []
    for origin in origins:
        parts = urlsplit(str(origin).rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.path or parts.query:
            raise ParameterError(f"allowed origin {escape(origin)!r} is not an origin",
                                 fix="write scheme://host[:port], e.g. https://annotate.example.org")
        out.append(f"{parts.scheme}://{parts.netloc}")
    return out


def _kind(value: object) -> str:
    """How a JSON value is named in an error message."""
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
             float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _number(body: dict, name: str) -> float | None:
    """An optional field that, when given, is a finite number >= 0 (null means not given)."""
    value = body.get(name)
    if value is None:
        return None
    number = not isinstance(value, bool) and isinstance(value, (int, float))
    if number:
        try:
            value = float(value)
        except OverflowError:  # an integer beyond float range
            value = math.inf
    if not number or not math.isfinite(value) or value < 0:
        raise _BadRequest(HTTPStatus.BAD_REQUEST, f"{name} must be a finite number >= 0 or null, "
                         f"found {repr(value)[:40] if isinstance(value, str) else str(value)[:40]}")
    return float(value)


def parse_body(raw: bytes) -> object:
    """Strict JSON: UTF-8, no NaN/Infinity literals; :class:`_BadRequest` (400) otherwise.

    Parameters
    ----------
    raw : bytes
        The request body.

    Returns
    -------
    object
        The parsed JSON value (lone surrogates, which cannot be stored, are refused too).

    Raises
    ------
    _BadRequest
        400 when the body is not strict UTF-8 JSON.
    """
    try:
        body = loads_strict(raw.decode("utf-8"))
        json.dumps(body, ensure_ascii=False).encode("utf-8")  # lone surrogates (\ud800) cannot be stored
        return body
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, UnicodeDecodeError, huge ints
        raise _BadRequest(HTTPStatus.BAD_REQUEST, f"the body must be a JSON object (UTF-8): {str(exc)[:120]}"
                         ) from None


class _Handler(BaseHTTPRequestHandler):
    app: AnnotationApp
    allowed_origins: frozenset[str] = frozenset()
    quiet = True
    protocol_version = "HTTP/1.1"
    default_request_version = "HTTP/1.0"  # answer even an unparseable request line with a status line
    server_version = "tealeaves-annotate"

    def log_message(self, fmt, *args):  # noqa: D102 - silence the default stderr log unless asked
        if not self.quiet:
            sys.stderr.write(escape(f"{self.address_string()} - {fmt % args}") + "\n")

    def _send(self, code: int, body: bytes, ctype: str, headers: dict | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, code: int, obj: dict, headers: dict | None = None) -> None:
        self._send(code, json.dumps(obj, ensure_ascii=False).encode("utf-8", "backslashreplace"),
                   "application/json; charset=utf-8", headers)

    def _dispatch(self, handler) -> None:
        """Run ``handler``; every outcome is an HTTP reply (client errors 4xx, storage failures 503)."""
        try:
            handler()
        except _BadRequest as exc:
            headers = exc.extra.pop("_headers", None)
            self._json(exc.status, {"error": exc.message, **exc.extra}, headers)
        except StoreUnavailableError as exc:
            self._json(HTTPStatus.SERVICE_UNAVAILABLE, {"error": str(exc), "retry_after": RETRY_AFTER},
                       {"Retry-After": str(RETRY_AFTER)})
        except (ConnectionError, TimeoutError):
            self.close_connection = True  # the client went away: nobody to answer
        except Exception as exc:  # a bug: answer 500, log one line, keep serving
            self.close_connection = True
            sys.stderr.write(escape(f"tealeaves annotate: internal error on {self.command} {self.path}: "
                                    f"{type(exc).__name__}: {exc} (this is a bug)") + "\n")
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": "internal error (logged by the server)"})

    def _route(self) -> tuple[str, list[str]]:
        parts = urlsplit(self.path).path.strip("/").split("/")
        if parts == ["healthz"]:
            return "healthz", parts
        if len(parts) == 2 and parts[0] == "static" and parts[1] in STATIC:
            return "static", parts
        if len(parts) == 2 and parts[0] == "a":
            return "page", parts
        if len(parts) == 3 and parts[0] == "api" and parts[2] in ROUTES:
            return parts[2], parts
        return "", parts

    def _annotator(self, token: str) -> str:
        name = self.app.store.annotator_for_token(token)
        if name is None:
            raise _BadRequest(HTTPStatus.NOT_FOUND, "unknown annotator link; ask the study lead for yours")
        return name

    def _get(self) -> None:
        route, parts = self._route()
        if route == "healthz":
            return self._send(200, b"ok", "text/plain")
        if route == "static":
            return self._send(200, self.app._static[parts[1]], STATIC[parts[1]])
        if route == "page":
            if self.app.store.annotator_for_token(parts[1]) is None:
                return self._send(404, b"Unknown annotator link.", "text/plain; charset=utf-8")
            return self._send(200, self.app._static["index.html"], STATIC["index.html"])
        if route == "state":
            return self._json(200, self.app.state(self._annotator(parts[1])))
        if route == "judgments":
            raise _BadRequest(HTTPStatus.METHOD_NOT_ALLOWED, "use POST", _headers={"Allow": "POST"})
        return self._send(404, b"Not found.", "text/plain")

    def _post(self) -> None:
        raw = self._body()
        route, parts = self._route()
        if route in ("healthz", "static", "page", "state"):
            raise _BadRequest(HTTPStatus.METHOD_NOT_ALLOWED, "use GET", _headers={"Allow": "GET, HEAD"})
        if route != "judgments":
            raise _BadRequest(HTTPStatus.NOT_FOUND, "not found")
        self._check_origin()
        name = self._annotator(parts[1])
        code, reply = self.app.submit(name, parse_body(raw))
        self._json(code, reply)

    def _body(self) -> bytes:
        """The request body, or :class:`_BadRequest` (400/411/413) for a missing, bad or oversized length."""
        if self.headers.get("Transfer-Encoding"):
            self.close_connection = True
            raise _BadRequest(HTTPStatus.LENGTH_REQUIRED, "send the body with a Content-Length, not chunked")
        text = self.headers.get("Content-Length")
        if text is None:
            self.close_connection = True  # a body may follow that we cannot delimit
            raise _BadRequest(HTTPStatus.LENGTH_REQUIRED, "a POST needs a Content-Length header")
        if not text.strip().isdigit():
            self.close_connection = True
            raise _BadRequest(HTTPStatus.BAD_REQUEST, f"bad Content-Length {text[:40]!r}")
        length = int(text)
        if length > MAX_BODY:
            self.close_connection = True
            if length <= MAX_DRAIN:
                self.rfile.read(length)
            raise _BadRequest(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                             f"the body has {length} bytes; at most {MAX_BODY} are accepted")
        return self.rfile.read(length)

    def _check_origin(self) -> None:
        """403 unless ``Host`` (and ``Origin``, when sent) name this server or an allowed origin.

        The server's own address is the one the connection arrived at
        (``localhost`` too when that is a loopback address); ``allowed_origins``
        (``annotate serve --allow-origin``) adds the origins a reverse proxy serves the app under.
        """
        ip, port = self.connection.getsockname()[:2]
        hosts = {f"{ip}:{port}", f"[{ip}]:{port}"}
        if ip in ("127.0.0.1", "::1"):
            hosts |= {f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"}
        origins = {f"http://{h}" for h in hosts} | set(self.allowed_origins)
        hosts |= {urlsplit(o).netloc for o in self.allowed_origins}
        host, origin = self.headers.get("Host"), self.headers.get("Origin")
        if host not in hosts:
            raise _BadRequest(HTTPStatus.FORBIDDEN, f"Host {str(host)[:80]!r} is not this server's address")
        if origin is not None and origin.rstrip("/") not in origins:
            raise _BadRequest(HTTPStatus.FORBIDDEN, f"Origin {origin[:80]!r} may not post judgments "
                             "(start the server with it among its allowed origins)")

    def do_GET(self):  # noqa: N802 - http.server naming
        self._dispatch(self._get)

    def do_HEAD(self):  # noqa: N802
        self._dispatch(self._get)

    def do_POST(self):  # noqa: N802
        self._dispatch(self._post)

    def _other(self) -> None:
        route, _ = self._route()
        if not route:
            raise _BadRequest(HTTPStatus.NOT_FOUND, "not found")
        allow = "POST" if route == "judgments" else "GET, HEAD"
        raise _BadRequest(HTTPStatus.METHOD_NOT_ALLOWED, f"use {allow}", _headers={"Allow": allow})

    def do_PUT(self):  # noqa: N802
        self.close_connection = True  # a body may follow that we do not read
        self._dispatch(self._other)

    do_DELETE = do_PATCH = do_OPTIONS = do_PUT  # noqa: N815

    def send_error(self, code, message=None, explain=None):  # noqa: D102 - http.server's own errors
        self.close_connection = True  # malformed request line or headers: answer, then close
        if code == HTTPStatus.NOT_IMPLEMENTED:  # an unknown method
            code = HTTPStatus.METHOD_NOT_ALLOWED
        try:
            self._json(code, {"error": escape(str(message or HTTPStatus(code).phrase))[:200]})
        except (OSError, ValueError):
            pass


@shared_doc
def serve(study: Study, db: str, annotators: list[str], host: str = "127.0.0.1", port: int = 8000,
          quiet: bool = True, synchronous: str = "FULL", announce=print,
          allowed_origins: Sequence[str] = ()) -> None:
    """Run the annotation server until interrupted, announcing each annotator's personal link.

    Names from the study or the command line are printed through :func:`escape`.

    Parameters
    ----------
    %(app_study)s
    db : str
        The judgment database (:class:`~tealeaves.human.store.JudgmentStore`), created if missing.
    annotators : list of str
        The annotators; those new to the database get a link token.
    %(app_host)s %(app_port)s %(app_quiet)s
    synchronous : {"FULL", "NORMAL", "EXTRA"}
        SQLite's ``synchronous`` setting of the store.
    announce : callable
        Called like :func:`print` (with ``flush=True``) with the serving line and one
        ``LINK NAME URL`` line per annotator.
    %(app_origins)s

    Raises
    ------
    StoreError
        When the database cannot be used or belongs to another study.
    ParameterError
        When an origin is bad or the server cannot listen on ``host:port``.
    """
    store = JudgmentStore(db, synchronous=synchronous)
    try:
        app = AnnotationApp(study, store)
        tokens = store.ensure_annotators(annotators)
        server = app.make_server(host, port, quiet=quiet, allowed_origins=allowed_origins)
    except BaseException:
        store.close()
        raise
    base = f"http://{server.server_address[0]}:{server.server_address[1]}"
    try:
        announce(f"serving study '{escape(study.name)}' ({len(study)} items) on {base}", flush=True)
        for name in annotators:
            announce(f"LINK {escape(name)} {base}/a/{tokens[name]}", flush=True)
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        store.close()
