"""The on-disk cache of a language model's answers: one SQLite row per (endpoint, model, key).

Every answer is committed as it arrives (WAL journal, ``synchronous=FULL``, one transaction per
row), so a run killed at any moment keeps every answer received before it, and a rerun asks only
what is missing.  A row holds the request body as sent (without the API key, which is a header and
never stored), the answer text, its status (``ok`` or ``failed``), the reason of a failure, the raw
response text (for inspection of a malformed answer), the number of attempts and the time the
response was received.  A ``failed`` row is not an answer: the next run asks that item again.

The row's id is the SHA-256 of the JSON text ``[endpoint, model, key]``, so the same key asked of
another model or another server is another row.  Each row also holds the SHA-256 of all its other
fields (``digest``, :func:`row_digest`), checked whenever the row is read: a row changed after it
was written (a flipped byte in an answer, a key swapped between rows) is refused with
:class:`~tealeaves.errors.ChatCacheError` rather than read as an answer, and an existing file must
pass SQLite's ``quick_check`` when it is opened.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path

from tealeaves.errors import ChatCacheError

#: Recorded in the ``meta`` table; a cache of another format is refused.
FORMAT = "tealeaves-chat-cache"
VERSION = "1"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS answers (
    id TEXT PRIMARY KEY,
    endpoint TEXT NOT NULL,
    model TEXT NOT NULL,
    key TEXT NOT NULL,
    request TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('ok', 'failed')),
    text TEXT,
    error TEXT,
    raw TEXT,
    attempts INTEGER NOT NULL,
    created TEXT NOT NULL,
    digest TEXT NOT NULL);
"""

#: Seconds a writer waits for a lock held by another connection.
BUSY_TIMEOUT = 10.0


def row_id(endpoint: str, model: str, key: tuple) -> str:
    """The cache identity of one request: SHA-256 of the JSON text ``[endpoint, model, key]``.

    Parameters
    ----------
    endpoint : str
        The endpoint's base URL (without a trailing ``/``).
    model : str
        The model's name.
    key : tuple
        The request's key (JSON scalars: text, numbers, booleans, ``None``).

    Returns
    -------
    str
        64 hexadecimal digits.

    Examples
    --------
    >>> len(row_id("http://127.0.0.1:8080/v1", "m", ("v1", "rating/0", 0)))
    64
    """
    text = json.dumps([endpoint, model, list(key)], ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def row_digest(values: tuple) -> str:
    """The checksum of one cache row: SHA-256 of the JSON list of its fields, ``digest`` excepted.

    Parameters
    ----------
    values : tuple
        ``(id, endpoint, model, key, request, status, text, error, raw, attempts, created)`` as stored.

    Returns
    -------
    str
        64 hexadecimal digits.
    """
    text = json.dumps(list(values), ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedAnswer:
    """One row of the cache.

    Parameters
    ----------
    request : dict
        The request body as sent.
    status : str
        ``"ok"`` or ``"failed"``.
    text : str or None
        The answer (``None`` when failed).
    error : str or None
        Why it failed.
    raw : str or None
        The response text as received.
    attempts : int
        HTTP requests made for it.
    created : str
        ISO-8601 UTC time the response was received.
    """

    request: dict
    status: str
    text: str | None
    error: str | None
    raw: str | None
    attempts: int
    created: str


def _unusable(path: Path, exc: Exception) -> ChatCacheError:
    """Why SQLite could not open ``path`` as a database, said for the user."""
    reasons = ((path.is_dir(), "is a folder, not a file", "give a file name, e.g. answers.sqlite"),
               (not path.parent.is_dir(), f"is in folder '{path.parent}', which does not exist",
                "create the folder first"),
               ("not a database" in str(exc), "is not a SQLite database",
                "give a new file name or a cache written by tealeaves"))
    what, fix = next(((what, fix) for found, what, fix in reasons if found),
                     (f"cannot be used ({exc})", "check that its folder is writable, or give a new file"))
    return ChatCacheError(f"answer cache '{path}' {what}", fix=fix)


class ChatCache:
    """The answers of one or more runs in a SQLite file, safe to share between threads.

    A request is identified by ``ident = (endpoint, model, key)``: the endpoint's base URL, the
    model's name and the request's key (:func:`row_id`).

    Parameters
    ----------
    path : str or os.PathLike
        The database file (created when missing).

    Raises
    ------
    ChatCacheError
        For a path that is a folder, in a missing folder, not a SQLite file, another program's
        database, of another version, or corrupt.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path).expanduser()
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False,
                                       timeout=BUSY_TIMEOUT)
            self._prepare()
        except sqlite3.Error as exc:
            raise _unusable(self.path, exc) from None

    def _prepare(self) -> None:
        """Check an existing cache's tables, format and version; make them in a new one."""
        db = self._db
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables and db.execute("PRAGMA quick_check").fetchone()[0] != "ok":
            db.close()
            raise ChatCacheError(f"answer cache '{self.path}' is damaged (SQLite's quick_check fails)",
                                 fix="give a new file for the cache; its answers will be asked again")
        if tables and (not {"meta", "answers"} <= tables
                       or dict(db.execute("SELECT key, value FROM meta")).get("format") != FORMAT):
            db.close()
            raise ChatCacheError(f"'{self.path}' is a SQLite database but not an answer cache of tealeaves "
                                 f"(tables: {sorted(tables)})", fix="give a new file for the cache")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        db.executescript(SCHEMA)
        db.execute("INSERT OR IGNORE INTO meta VALUES ('format', ?), ('version', ?)", (FORMAT, VERSION))
        version = dict(db.execute("SELECT key, value FROM meta")).get("version")
        if version != VERSION:
            db.close()
            raise ChatCacheError(f"answer cache '{self.path}' is of version {version}, this tealeaves reads "
                                 f"version {VERSION}", fix="give a new file for the cache")

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> ChatCache:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextlib.contextmanager
    def _using(self, doing: str, fix: str):
        """The connection, under the lock; a SQLite failure (or a damaged row) is a ChatCacheError."""
        try:
            with self._lock:
                yield self._db
        except (sqlite3.Error, ValueError, RecursionError) as exc:  # RecursionError: JSON nested too deeply
            raise ChatCacheError(f"cannot {doing} answer cache '{self.path}': {exc}", fix=fix) from None

    def get(self, ident: tuple) -> CachedAnswer | None:
        """The row of one request, or ``None`` when it was never stored.

        Parameters
        ----------
        ident : tuple
            ``(endpoint, model, key)`` of the request.

        Returns
        -------
        CachedAnswer or None
            The row.
        """
        with self._using("read", "give a new file for the cache") as db:
            row = db.execute("SELECT id, endpoint, model, key, request, status, text, error, raw, attempts, "
                             "created, digest FROM answers WHERE id = ?", (row_id(*ident),)).fetchone()
            if row is None:
                return None
            if row_digest(row[:-1]) != row[-1] or row_id(*row[1:3], tuple(json.loads(row[3]))) != row[0]:
                raise ChatCacheError(f"answer cache '{self.path}' holds a row changed after it was written "
                                     f"(key {ident[2]!r}: its checksum does not match)",
                                     fix="give a new file for the cache; its answers will be asked again")
            return CachedAnswer(json.loads(row[4]), *row[5:11])

    def put(self, ident: tuple, answer: CachedAnswer) -> None:
        """Store (or replace) the row of one request, committed before returning.

        Parameters
        ----------
        ident : tuple
            ``(endpoint, model, key)`` of the request.
        answer : CachedAnswer
            What to store.
        """
        endpoint, model, key = ident
        values = (row_id(endpoint, model, key), endpoint, model,
                  json.dumps(list(key), ensure_ascii=False, allow_nan=False),
                  json.dumps(answer.request, ensure_ascii=False, allow_nan=False),
                  answer.status, answer.text, answer.error, answer.raw, answer.attempts, answer.created)
        values += (row_digest(values),)
        with self._using("write", "free disk space or make its folder writable, then run again: the answers "
                         "stored so far are kept") as db:
            db.execute("INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", values)

    def counts(self) -> dict[str, int]:
        """Rows by status.

        Returns
        -------
        dict of str to int
            ``{"ok": n, "failed": m}``.
        """
        with self._using("read", "give a new file for the cache") as db:
            rows = dict(db.execute("SELECT status, COUNT(*) FROM answers GROUP BY status"))
        return {"ok": rows.get("ok", 0), "failed": rows.get("failed", 0)}
