"""A local web app for lab annotation studies (standard library only: http.server + sqlite3).

Routes (``TOKEN`` is an annotator's personal link token):

* ``GET /a/TOKEN`` - the annotation page (``static/index.html``);
* ``GET /static/{app.js,style.css}`` - its script and style;
* ``GET /api/TOKEN/state`` - progress and the next unanswered item (public view: no answer, no check flag);
* ``POST /api/TOKEN/judgments`` - ``{"item_id", "response", "key"[, "confidence", "time"]}``; answers
  ``{"status": "stored" | "duplicate"}`` (200), 409 if the item was already answered under another key,
  400 for a response that is not one of the item's options, 404 for an unknown token or item;
* ``GET /healthz`` - ``ok``.

A web framework is not needed: the app serves three static files and two
JSON routes, and ``ThreadingHTTPServer`` gives one thread per connection.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources

from tealeaves.human.results import normalize_response
from tealeaves.human.store import CONFLICT, JudgmentStore, StoreError
from tealeaves.human.study import Study

STATIC = {"app.js": "text/javascript; charset=utf-8", "style.css": "text/css; charset=utf-8",
          "index.html": "text/html; charset=utf-8"}
MAX_BODY = 64 * 1024
PLATFORM = "tealeaves-app"


class AnnotationApp:
    """The study, the judgment store and the per-annotator item orders behind the server."""

    def __init__(self, study: Study, store: JudgmentStore):
        self.study = study
        self.store = store
        store.bind_study(study.fingerprint, study.name)
        self._static = {name: resources.files("tealeaves.human").joinpath("static", name).read_bytes()
                        for name in STATIC}

    def state(self, annotator: str) -> dict:
        """Progress of ``annotator`` and the next item they have not answered."""
        done = self.store.answered(annotator)
        order = self.study.order_for(annotator)
        nxt = next((i for i in order if i not in done), None)
        return {"annotator": annotator, "study": self.study.name, "total": len(order),
                "answered": len(done & set(order)),
                "confidence": bool(self.study.settings.get("confidence")),
                "item": None if nxt is None else self.study.public_item(nxt)}

    def submit(self, annotator: str, body: dict) -> tuple[int, dict]:
        """Validate and store one judgment; return the HTTP status and the JSON reply."""
        item = self.study.by_id.get(str(body.get("item_id")))
        key = body.get("key")
        if item is None:
            return HTTPStatus.NOT_FOUND, {"error": f"unknown item {body.get('item_id')!r}"}
        if not isinstance(key, str) or not 8 <= len(key) <= 128:
            return HTTPStatus.BAD_REQUEST, {"error": "a submission needs an idempotency key "
                                                                 "of 8-128 characters"}
        response = normalize_response(item, body.get("response", ""))
        if response is None:
            return HTTPStatus.BAD_REQUEST, {"error": f"response {body.get('response')!r} is not an option",
                                            "options": item["options"]}
        try:
            confidence = _number(body.get("confidence"))
            seconds = _number(body.get("time"))
            status = self.store.submit(annotator, item["id"], response, key, confidence=confidence,
                                       time=seconds, platform=PLATFORM)
        except (StoreError, ValueError) as exc:
            return HTTPStatus.BAD_REQUEST, {"error": str(exc)}
        code = HTTPStatus.CONFLICT if status == CONFLICT else HTTPStatus.OK
        return code, {"status": status, **{k: v for k, v in self.state(annotator).items() if k != "item"}}

    def make_server(self, host: str = "127.0.0.1", port: int = 8000,
                    quiet: bool = True) -> ThreadingHTTPServer:
        """A ThreadingHTTPServer bound to ``host:port`` serving this app (port 0 picks a free port)."""
        app = self

        class Handler(_Handler):
            pass

        Handler.app = app
        Handler.quiet = quiet
        server = ThreadingHTTPServer((host, port), Handler)
        server.daemon_threads = True
        return server


def _number(value) -> float | None:
    if value is None or value == "":
        return None
    return float(value)


class _Handler(BaseHTTPRequestHandler):
    app: AnnotationApp
    quiet = True
    protocol_version = "HTTP/1.1"
    server_version = "tealeaves-annotate"

    def log_message(self, fmt, *args):  # noqa: D102 - silence the default stderr log unless asked
        if not self.quiet:
            super().log_message(fmt, *args)

    def _send(self, code: int, body: bytes, ctype: str) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, code: int, obj: dict) -> None:
        self._send(code, json.dumps(obj, ensure_ascii=False).encode(), "application/json; charset=utf-8")

    def _annotator(self, token: str) -> str | None:
        name = self.app.store.annotator_for_token(token)
        if name is None:
            self._json(HTTPStatus.NOT_FOUND, {"error": "unknown annotator link; ask the study lead "
                                                       "for yours"})
        return name

    def do_GET(self):  # noqa: N802 - http.server naming
        parts = self.path.split("?", 1)[0].strip("/").split("/")
        if parts == ["healthz"]:
            return self._send(200, b"ok", "text/plain")
        if len(parts) == 2 and parts[0] == "static" and parts[1] in STATIC:
            return self._send(200, self.app._static[parts[1]], STATIC[parts[1]])
        if len(parts) == 2 and parts[0] == "a":
            if self.app.store.annotator_for_token(parts[1]) is None:
                return self._send(404, b"Unknown annotator link.", "text/plain; charset=utf-8")
            return self._send(200, self.app._static["index.html"], STATIC["index.html"])
        if len(parts) == 3 and parts[0] == "api" and parts[2] == "state":
            name = self._annotator(parts[1])
            if name is not None:
                self._json(200, self.app.state(name))
            return None
        return self._send(404, b"Not found.", "text/plain")

    def do_POST(self):  # noqa: N802 - http.server naming
        parts = self.path.split("?", 1)[0].strip("/").split("/")
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= MAX_BODY:
            self.close_connection = True
            return self._json(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                              {"error": "missing, bad or too large Content-Length"})
        raw = self.rfile.read(length)
        if not (len(parts) == 3 and parts[0] == "api" and parts[2] == "judgments"):
            return self._json(404, {"error": "not found"})
        name = self._annotator(parts[1])
        if name is None:
            return None
        try:
            body = json.loads(raw or b"{}")
            if not isinstance(body, dict):
                raise ValueError("not an object")
        except ValueError:
            return self._json(HTTPStatus.BAD_REQUEST, {"error": "the body must be a JSON object"})
        code, reply = self.app.submit(name, body)
        return self._json(code, reply)


def serve(study: Study, db: str, annotators: list[str], host: str = "127.0.0.1", port: int = 8000,
          quiet: bool = True, synchronous: str = "FULL", announce=print) -> None:
    """Run the annotation server until interrupted, announcing each annotator's personal link."""
    store = JudgmentStore(db, synchronous=synchronous)
    app = AnnotationApp(study, store)
    tokens = store.ensure_annotators(annotators)
    server = app.make_server(host, port, quiet=quiet)
    base = f"http://{server.server_address[0]}:{server.server_address[1]}"
    announce(f"serving study {study.name!r} ({len(study)} items) on {base}", flush=True)
    for name in annotators:
        announce(f"LINK {name} {base}/a/{tokens[name]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        store.close()
