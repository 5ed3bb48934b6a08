"""SQLite storage of judgments for the annotation app (WAL journal, one transaction per submission).

Every submission carries an idempotency key chosen by the client when the
item is shown.  The key is UNIQUE in the table, so a retried request (lost
response, server restart) is recognised and answered "duplicate" instead of
being stored twice; ``(annotator, item_id)`` is UNIQUE too, so an annotator
answers each item once.  A judgment is acknowledged only after its
transaction has committed, so an acknowledged judgment survives the server
being killed.
"""

from __future__ import annotations

import secrets
import sqlite3
import threading
from datetime import datetime, timezone
from pathlib import Path

from tealeaves.errors import TealeavesError

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS annotators (
    name TEXT PRIMARY KEY, token TEXT UNIQUE NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS judgments (
    id INTEGER PRIMARY KEY,
    idem_key TEXT UNIQUE NOT NULL,
    annotator TEXT NOT NULL REFERENCES annotators(name),
    item_id TEXT NOT NULL,
    response TEXT NOT NULL,
    confidence REAL,
    time REAL,
    platform TEXT,
    submitted_at TEXT NOT NULL,
    UNIQUE (annotator, item_id));
"""

STORED, DUPLICATE, CONFLICT = "stored", "duplicate", "conflict"


class StoreError(TealeavesError):
    """The judgment database cannot be used (other study, reused key...)."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class JudgmentStore:
    """Judgments of one study in a SQLite file, safe to share between server threads."""

    def __init__(self, path: str | Path, synchronous: str = "FULL"):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        if synchronous.upper() not in ("FULL", "NORMAL", "EXTRA"):
            raise StoreError(f"synchronous must be FULL, NORMAL or EXTRA, got {synchronous!r}")
        self._db.execute(f"PRAGMA synchronous={synchronous.upper()}")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        self._db.close()

    def _transaction(self, fn):
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                out = fn(self._db)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            return out

    def bind_study(self, fingerprint: str, name: str = "") -> None:
        """Record the study this database belongs to; refuse a database of another study."""
        def run(db):
            row = db.execute("SELECT value FROM meta WHERE key='study'").fetchone()
            if row is None:
                db.execute("INSERT INTO meta VALUES ('study', ?), ('study_name', ?)", (fingerprint, name))
            elif row["value"] != fingerprint:
                raise StoreError(f"{self.path} holds judgments of another study ({row['value']}, this one is "
                                 f"{fingerprint}); use a new --db file for this study")
        self._transaction(run)

    def ensure_annotators(self, names) -> dict[str, str]:
        """Create annotators that do not exist yet (with a random link token); return name -> token."""
        def run(db):
            for name in names:
                db.execute("INSERT OR IGNORE INTO annotators VALUES (?, ?, ?)",
                           (name, secrets.token_urlsafe(9), _now()))
            return {r["name"]: r["token"] for r in db.execute("SELECT name, token FROM annotators")}
        return self._transaction(run)

    def annotators(self) -> dict[str, str]:
        with self._lock:
            return {r["name"]: r["token"] for r in self._db.execute("SELECT name, token FROM annotators")}

    def annotator_for_token(self, token: str) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT name FROM annotators WHERE token=?", (token,)).fetchone()
        return None if row is None else row["name"]

    def answered(self, annotator: str) -> set[str]:
        with self._lock:
            rows = self._db.execute("SELECT item_id FROM judgments WHERE annotator=?", (annotator,))
            return {r["item_id"] for r in rows}

    def submit(self, annotator: str, item_id: str, response: str, key: str, *,
               confidence: float | None = None, time: float | None = None,
               platform: str | None = None) -> str:
        """Store a judgment once.

        Returns STORED, DUPLICATE (this key was seen before) or CONFLICT (the
        annotator already answered the item under another key).
        """
        def run(db):
            row = db.execute("SELECT annotator, item_id FROM judgments WHERE idem_key=?", (key,)).fetchone()
            if row is not None:
                if (row["annotator"], row["item_id"]) != (annotator, item_id):
                    raise StoreError(f"idempotency key {key!r} was already used for another judgment")
                return DUPLICATE
            if db.execute("SELECT 1 FROM judgments WHERE annotator=? AND item_id=?",
                          (annotator, item_id)).fetchone():
                return CONFLICT
            db.execute("INSERT INTO judgments (idem_key, annotator, item_id, response, confidence, time, "
                       "platform, submitted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (key, annotator, item_id, response, confidence, time, platform, _now()))
            return STORED
        return self._transaction(run)

    def rows(self) -> list[dict]:
        """All judgments in submission order, as long-format dicts."""
        with self._lock:
            cur = self._db.execute("SELECT item_id, annotator, response, confidence, time, platform, "
                                   "submitted_at, idem_key FROM judgments ORDER BY id")
            return [dict(r) for r in cur]
