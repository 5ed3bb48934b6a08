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

import contextlib
import secrets
import sqlite3
import threading
from datetime import datetime, timezone
from pathlib import Path

from tealeaves._docs import shared_doc
from tealeaves.errors import StoreError, StoreUnavailableError

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

#: The suffixes of a judgment database file (any other is a long-format table).
STORE_SUFFIXES = (".sqlite", ".sqlite3", ".db")


#: The former name of :class:`~tealeaves.errors.StoreUnavailableError`.
StoreUnavailable = StoreUnavailableError

#: Seconds a writer waits for a lock held by another connection before giving up (503).
BUSY_TIMEOUT = 5.0


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _check_db_path(path: Path, must_exist: bool) -> None:
    """Refuse a database path that cannot be a SQLite file, before SQLite reports it obscurely."""
    if path.is_dir():
        raise StoreError(f"judgment database '{path}' is a folder, not a database file",
                         fix="give a file name, e.g. judgments.sqlite")
    if must_exist and not path.exists():
        raise StoreError(f"no judgment database at '{path}'", fix="check the database path")
    if not path.parent.is_dir():
        raise StoreError(f"judgment database '{path}': folder '{path.parent}' does not exist",
                         fix="create it first")
    if path.exists() and path.stat().st_size:
        with open(path, "rb") as fh:
            if fh.read(16) != b"SQLite format 3\x00":
                raise StoreError(f"judgment database '{path}' is not a SQLite database",
                                 fix="give a new file name or a database of `tealeaves annotate serve`")


class JudgmentStore:
    """Judgments of one study in a SQLite file, safe to share between server threads.

    ``readonly=True`` opens an existing database without writing to it (``annotate export``).
    Any SQLite failure on opening is a :class:`StoreError` naming the file.

    Parameters
    ----------
    path : str or os.PathLike
        The database file (created unless ``readonly``).
    synchronous : {"FULL", "NORMAL", "EXTRA"}
        SQLite's ``synchronous`` setting (any case); FULL makes an acknowledged judgment survive
        a power loss.
    readonly : bool
        Open an existing database without writing to it.
    timeout : float
        Seconds a writer waits for a lock held by another connection (:data:`BUSY_TIMEOUT`).

    Raises
    ------
    StoreError
        For a bad ``synchronous``, a path that is a folder, missing (``readonly``), in a missing
        folder, not a SQLite file, not a judgment database or corrupt.
    """

    def __init__(self, path: str | Path, synchronous: str = "FULL", *, readonly: bool = False,
                 timeout: float = BUSY_TIMEOUT):
        self.path = Path(path).expanduser()
        if synchronous.upper() not in ("FULL", "NORMAL", "EXTRA"):
            raise StoreError(f"synchronous must be FULL, NORMAL or EXTRA, got {synchronous!r}")
        _check_db_path(self.path, must_exist=readonly)
        self._lock = threading.Lock()
        try:
            self._db = self._open(readonly, synchronous.upper(), timeout)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot use '{self.path}' as a judgment database: {exc}",
                             fix="check that it is a database written by `tealeaves annotate serve`, that "
                             "its folder is writable, or give a new database file") from None

    def _open(self, readonly: bool, synchronous: str, timeout: float) -> sqlite3.Connection:
        uri = f"{self.path.resolve().as_uri()}?mode=ro" if readonly else str(self.path)
        db = sqlite3.connect(uri, uri=readonly, isolation_level=None, check_same_thread=False,
                             timeout=timeout)
        db.row_factory = sqlite3.Row
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if (tables or readonly) and not {"meta", "annotators", "judgments"} <= tables:
            db.close()
            raise StoreError(f"'{self.path}' is a SQLite database but not a tealeaves judgment database "
                             f"(tables: {sorted(tables)})", fix="give a new database file for this study")
        verdict = db.execute("PRAGMA quick_check(1)").fetchone()[0]
        if verdict != "ok":
            db.close()
            raise StoreError(f"'{self.path}' is corrupt (SQLite quick_check: {verdict})",
                             fix="restore it from a backup or give a new database file")
        if not readonly:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(f"PRAGMA synchronous={synchronous}")
            db.executescript(SCHEMA)
        return db

    def close(self) -> None:
        """Close the database connection."""
        self._db.close()

    def _transaction(self, fn):
        """Run ``fn(db)`` in one ``BEGIN IMMEDIATE`` transaction; SQLite failures become
        StoreUnavailableError."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    out = fn(self._db)
                    self._db.execute("COMMIT")
                except BaseException:
                    if self._db.in_transaction:
                        with contextlib.suppress(sqlite3.Error):
                            self._db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise StoreUnavailableError(f"the judgment database '{self.path}' cannot be written: {exc}",
                                       fix="free disk space, check its permissions or stop the other "
                                       "program using it; nothing was stored") from None
            return out

    def _read(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        with self._lock:
            try:
                return self._db.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise StoreUnavailableError(f"the judgment database '{self.path}' cannot be read: {exc}",
                                       fix="check the file and its folder") from None

    def bind_study(self, fingerprint: str, name: str = "") -> None:
        """Record the study this database belongs to; refuse a database of another study.

        Parameters
        ----------
        fingerprint : str
            The study's fingerprint (:attr:`~tealeaves.human.study.Study.fingerprint`).
        name : str
            The study's name, recorded with it.

        Raises
        ------
        StoreError
            When the database is bound to another study.
        StoreUnavailableError
            When the database cannot be written.
        """
        def run(db):
            row = db.execute("SELECT value FROM meta WHERE key='study'").fetchone()
            if row is None:
                db.execute("INSERT INTO meta VALUES ('study', ?), ('study_name', ?)", (fingerprint, name))
            elif row["value"] != fingerprint:
                raise StoreError(f"{self.path} holds judgments of another study ({row['value']}, this one is "
                                 f"{fingerprint}); use a new database file for this study")
        self._transaction(run)

    def ensure_annotators(self, names) -> dict[str, str]:
        """Create annotators that do not exist yet (with a random link token); return name -> token.

        Parameters
        ----------
        names : iterable of str
            The annotators' names; existing ones keep their token.

        Returns
        -------
        dict of str to str
            Every annotator of the database (not only ``names``) and their token.
        """
        def run(db):
            for name in names:
                db.execute("INSERT OR IGNORE INTO annotators VALUES (?, ?, ?)",
                           (name, secrets.token_urlsafe(9), _now()))
            return {r["name"]: r["token"] for r in db.execute("SELECT name, token FROM annotators")}
        return self._transaction(run)

    def annotators(self) -> dict[str, str]:
        """Every annotator of the database and their link token.

        Returns
        -------
        dict of str to str
            Name -> token.
        """
        return {r["name"]: r["token"] for r in self._read("SELECT name, token FROM annotators")}

    def annotator_for_token(self, token: str) -> str | None:
        """The annotator whose link carries ``token``.

        Parameters
        ----------
        token : str
            A link token.

        Returns
        -------
        str or None
            The annotator's name, or None for an unknown token.
        """
        rows = self._read("SELECT name FROM annotators WHERE token=?", (token,))
        return rows[0]["name"] if rows else None

    @shared_doc
    def answered(self, annotator: str) -> set[str]:
        """The items ``annotator`` has answered.

        Parameters: %(annotator)s

        Returns
        -------
        set of str
            Their item ids.
        """
        return {r["item_id"] for r in self._read("SELECT item_id FROM judgments WHERE annotator=?",
                                                 (annotator,))}

    @shared_doc
    def submit(self, annotator: str, item_id: str, response: str, key: str, *,
               confidence: float | None = None, time: float | None = None,
               platform: str | None = None) -> str:
        """Store a judgment once, in one transaction.

        Parameters
        ----------
        %(annotator)s
        item_id : str
            The item answered.
        response : str
            The response.
        key : str
            The idempotency key the client chose when the item was shown.
        confidence : float, optional
            The annotator's confidence.
        time : float, optional
            Seconds spent on the item.
        platform : str, optional
            Where the judgment was collected.

        Returns
        -------
        str
            STORED, DUPLICATE (this key was seen before) or CONFLICT (the
            annotator already answered the item under another key).

        Raises
        ------
        StoreError
            When ``key`` was already used for another judgment (another annotator or item).
        StoreUnavailableError
            When the database cannot be written; nothing was stored.
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
        """All judgments in submission order, as long-format dicts.

        Returns
        -------
        list of dict
            ``item_id``, ``annotator``, ``response``, ``confidence``, ``time``, ``platform``,
            ``submitted_at`` and ``idem_key`` of each judgment.
        """
        return [dict(r) for r in self._read("SELECT item_id, annotator, response, confidence, time, "
                                            "platform, submitted_at, idem_key FROM judgments ORDER BY id")]

    def set_meta(self, values: dict[str, str]) -> None:
        """Record ``key -> value`` pairs in the database's ``meta`` table (replacing older values).

        Parameters
        ----------
        values : dict of str to str
            The pairs; the keys ``study`` and ``study_name`` belong to :meth:`bind_study`.

        Raises
        ------
        StoreError
            When a key is ``study`` or ``study_name``.
        StoreUnavailableError
            When the database cannot be written.
        """
        if {"study", "study_name"} & set(values):
            raise StoreError("the meta keys 'study' and 'study_name' are written by bind_study only")
        self._transaction(lambda db: db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                                    list(values.items())))

    def meta(self, prefix: str = "") -> dict[str, str]:
        """The ``meta`` table's pairs whose key starts with ``prefix``.

        Parameters
        ----------
        prefix : str
            The start of the keys wanted (all keys by default).

        Returns
        -------
        dict of str to str
            Key -> value.
        """
        return {r["key"]: r["value"] for r in self._read("SELECT key, value FROM meta") if
                r["key"].startswith(prefix)}

    def study_fingerprint(self) -> str | None:
        """The fingerprint of the study this database is bound to (None if not yet bound).

        Returns
        -------
        str or None
            The fingerprint recorded by :meth:`bind_study`.
        """
        rows = self._read("SELECT value FROM meta WHERE key='study'")
        return rows[0]["value"] if rows else None
