"""Crash-and-retry load test of the annotation server (used by the test suite and ``benchmarks/``).

Simulated annotators submit judgments over loopback, each with its own
idempotency key, retrying with the same key until the server acknowledges
(HTTP 200).  Midway the server process is killed with SIGKILL and started
again on the same port and database.  Afterwards the database must hold
every acknowledged judgment exactly once.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import numpy as np

from tealeaves.human.store import JudgmentStore
from tealeaves.human.study import Study, build_study
from tealeaves.models.base import FixedTopicModel

HOST = "127.0.0.1"


def load_study(n_items: int = 40, seed: int = 0) -> Study:
    """A synthetic study of ``n_items`` items (half word intrusion, half rating), no check items.

    Topics without an admissible intruder are made up for by second ratings of the same topics.

    Parameters
    ----------
    n_items : int
        Items of the study.
    seed : int
        Seed of the topics and the study.

    Returns
    -------
    Study
        The study, named ``load``.
    """
    n_topics = n_items // 2
    rng = np.random.default_rng(seed)
    phi = rng.dirichlet(np.full(200, 0.05), size=n_topics)
    model = FixedTopicModel(phi, [f"w{i}" for i in range(200)])
    study = build_study(model, tasks=["word_intrusion", "rating"], n_checks=0, seed=seed, name="load")
    if len(study) < n_items:  # topics without an admissible intruder: pad with ratings of the same topics
        extra = [dict(i, id=f"{i['id']}-b", topic=f"{i['topic']}-b") for i in study.items
                 if i["task"] == "rating"]
        study = Study(study.items + extra[: n_items - len(study)], name="load", seed=seed)
    return Study(study.items[:n_items], name="load", seed=seed)


def free_port() -> int:
    """A free TCP port on the loopback address.

    Returns
    -------
    int
        The port number.
    """
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def start_server(study_path: Path, db: Path, port: int, annotators: list[str]) -> subprocess.Popen:
    """Start ``tealeaves annotate serve`` in a child process and wait until it answers /healthz.

    Parameters
    ----------
    study_path : pathlib.Path
        The study file.
    db : pathlib.Path
        The judgment database.
    port : int
        The port on the loopback address.
    annotators : list of str
        The annotators' names.

    Returns
    -------
    subprocess.Popen
        The server process.

    Raises
    ------
    RuntimeError
        When the server exits or does not answer within 15 s (it is then killed).
    """
    cmd = [sys.executable, "-m", "tealeaves.cli", "annotate", "serve", str(study_path), "--db", str(db),
           "--host", HOST, "--port", str(port), "--annotators", ",".join(annotators)]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {proc.stderr.read().decode()[-2000:]}")
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=1)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                conn.close()
                return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("server did not start within 15 s")


class Client(threading.Thread):
    """One simulated annotator: answers its items in order, retrying each with the same key until acked.

    Every ``replay_every``-th acknowledged judgment is sent once more with its
    key, as a client does when a response is lost; the server must answer
    "duplicate" and store nothing.  ``retries``, ``replays`` and ``error`` (None, or
    why the client stopped) are read after the thread ends.

    Parameters
    ----------
    token : str
        The annotator's link token.
    items : list of dict
        The items, in the order answered (each gets its first option as the response).
    port : int
        The server's port.
    deadline : float
        ``time.monotonic()`` value at which the client gives up.
    acked : list
        Shared list receiving ``(key, item id, response, status)`` of each acknowledged judgment.
    lock : threading.Lock
        Guards ``acked``.
    """

    replay_every = 10

    def __init__(self, token: str, items: list[dict], port: int, deadline: float, acked: list, lock):
        super().__init__(daemon=True)
        self.token, self.items, self.port, self.deadline = token, items, port, deadline
        self.acked, self.lock = acked, lock
        self.retries = 0
        self.replays = 0
        self.error: str | None = None

    def run(self) -> None:
        """Answer every item (the thread's body); stop at the first error or the deadline."""
        conn = None
        for n, item in enumerate(self.items):
            body = json.dumps({"item_id": item["id"], "response": item["options"][0],
                               "key": uuid.uuid4().hex}).encode()
            for attempt in range(2 if n % self.replay_every == 0 else 1):
                conn = self._send(conn, item, body, replay=attempt == 1)
                if self.error:
                    return
        if conn is not None:
            conn.close()

    def _send(self, conn, item, body, replay):
        """POST ``body`` until the server acknowledges it; return the (possibly new) connection.

        Failed attempts back off exponentially from 20 ms to 250 ms.
        """
        failures = 0
        while True:
            if time.monotonic() > self.deadline:
                self.error = "deadline passed"
                return conn
            try:
                conn = conn or http.client.HTTPConnection(HOST, self.port, timeout=5)
                conn.request("POST", f"/api/{self.token}/judgments", body,
                             {"Content-Type": "application/json"})
                resp = conn.getresponse()
                reply = json.loads(resp.read() or b"{}")
            except (OSError, http.client.HTTPException, ValueError):
                self.retries += 1
                if conn is not None:
                    conn.close()
                conn = None
                time.sleep(min(0.02 * 2 ** failures, 0.25))
                failures += 1
                continue
            if resp.status != 200 or (replay and reply.get("status") != "duplicate"):
                self.error = f"HTTP {resp.status}: {reply} (replay={replay})"
            elif replay:
                self.replays += 1
            else:
                with self.lock:
                    self.acked.append((json.loads(body)["key"], item["id"], item["options"][0],
                                       reply["status"]))
            return conn


def run(workdir: Path, n_clients: int = 50, n_judgments: int = 2000, kill_after: float = 0.4,
        timeout: float = 60.0) -> dict:
    """Run the crash-and-retry load test; return throughput and the exactly-once audit.

    ``kill_after`` is the fraction of judgments acknowledged before the
    SIGKILL.  Every client stops by itself at ``timeout`` seconds.

    Parameters
    ----------
    workdir : pathlib.Path
        Folder for the study file and the database.
    n_clients : int
        Simulated annotators.
    n_judgments : int
        Judgments in all (split evenly between the clients).
    kill_after : float
        Fraction of ``n_judgments`` acknowledged before the server is killed.
    timeout : float
        Seconds after which every client stops.

    Returns
    -------
    dict
        The audit (acknowledged, stored, ``lost``, ``stored_more_than_once``,
        ``stored_unacknowledged``, client errors, retries, replays) and the timings and
        throughputs before the kill, after the restart and overall.
    """
    workdir = Path(workdir)
    per_client = n_judgments // n_clients
    study = load_study(per_client)
    study_path = study.save(workdir / "load_study.json")
    db = workdir / "load.sqlite"
    names = [f"ann{i:02d}" for i in range(n_clients)]
    store = JudgmentStore(db)
    store.bind_study(study.fingerprint, study.name)
    tokens = store.ensure_annotators(names)
    store.close()
    port = free_port()
    proc = start_server(study_path, db, port, names)
    acked: list = []
    lock = threading.Lock()
    t0 = time.monotonic()
    deadline = t0 + timeout
    clients = [Client(tokens[n], [study.by_id[i] for i in study.order_for(n)], port, deadline, acked, lock)
               for n in names]
    for c in clients:
        c.start()
    target = int(kill_after * n_judgments)
    while len(acked) < target and time.monotonic() < deadline and any(c.is_alive() for c in clients):
        time.sleep(0.005)
    t_kill = time.monotonic()
    acked_before_kill = len(acked)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc = start_server(study_path, db, port, names)
    t_up = time.monotonic()
    acked_at_restart = len(acked)
    for c in clients:
        c.join(max(0.0, deadline - time.monotonic()))
    t_end = time.monotonic()
    proc.terminate()
    proc.wait(timeout=10)
    report = _audit(db, acked, clients, n_judgments, acked_before_kill,
                    first_phase=t_kill - t0, downtime=t_up - t_kill, total=t_end - t0)
    report["throughput_after_restart"] = round((len(acked) - acked_at_restart) / max(t_end - t_up, 1e-9), 1)
    return report


def _audit(db: Path, acked, clients, n_judgments, acked_before_kill, first_phase, downtime, total) -> dict:
    store = JudgmentStore(db)
    rows = store.rows()
    store.close()
    by_key: dict[str, list[dict]] = {}
    for r in rows:
        by_key.setdefault(r["idem_key"], []).append(r)
    acked_keys = {k for k, *_ in acked}
    lost = [k for k, item, resp, _ in acked if k not in by_key or by_key[k][0]["response"] != resp
            or by_key[k][0]["item_id"] != item]
    pairs = {(r["annotator"], r["item_id"]) for r in rows}
    return {
        "n_clients": len(clients), "n_judgments": n_judgments, "acknowledged": len(acked),
        "acknowledged_as_duplicate": sum(s == "duplicate" for *_, s in acked),
        "stored_rows": len(rows), "lost": len(lost),
        "stored_more_than_once": sum(len(v) > 1 for v in by_key.values()) + (len(rows) - len(pairs)),
        "stored_unacknowledged": len(set(by_key) - acked_keys),
        "client_errors": [c.error for c in clients if c.error],
        "client_retries": sum(c.retries for c in clients),
        "replays_answered_duplicate": sum(c.replays for c in clients),
        "acked_before_kill": acked_before_kill, "seconds_before_kill": round(first_phase, 3),
        "restart_seconds": round(downtime, 3), "seconds_total": round(total, 3),
        "throughput_before_kill": round(acked_before_kill / max(first_phase, 1e-9), 1),
        "throughput_overall": round(len(acked) / max(total, 1e-9), 1),
    }
