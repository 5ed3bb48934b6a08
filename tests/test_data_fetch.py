"""``tealeaves data fetch/list/verify`` end to end against a local HTTP server serving the real files.

The server (127.0.0.1, port 0, a thread) serves the reference data folder in the layout of a
data root (what a mirror serves) and archives built in a temporary folder from the real
files (what a publisher serves); it can flip a byte, drop a connection once mid-file, and
ignore ``Range``.  Every fetched file is compared byte for byte with the reference copy.
"""

from __future__ import annotations

import dataclasses
import hashlib
import http.server
import io
import socket
import tarfile
import threading
import zipfile
from pathlib import Path

import pytest

from conftest import require_data
from tealeaves import data
from tealeaves.cli import main
from tealeaves.data import fetch as fetch_mod
from tealeaves.data import registry

UDHR_FILE = "parallel/udhr/eng.articles.jsonl"


class DataServer(http.server.ThreadingHTTPServer):
    """Serves ``root`` at ``/data/`` and ``extra`` (path -> bytes) verbatim, with injected faults."""

    daemon_threads = True

    def __init__(self, root: Path):
        super().__init__(("127.0.0.1", 0), Handler)
        self.root, self.extra = root, {}
        self.flip: set[str] = set()        # paths served with one byte changed
        self.drop_once: set[str] = set()   # paths whose first response stops half way
        self.ranges = True                 # honour Range requests
        self.requests: list[tuple[str, str | None]] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def body(self, path: str) -> bytes | None:
        if path in self.extra:
            return self.extra[path]
        if path.startswith("/data/"):
            file = self.root / path[len("/data/"):]
            if file.is_file():
                return file.read_bytes()
        return None


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):  # keep the test output clean
        pass

    def do_GET(self):  # noqa: N802 - http.server's hook
        srv: DataServer = self.server
        from urllib.parse import unquote

        path = unquote(self.path)
        srv.requests.append((path, self.headers.get("Range")))
        body = srv.body(path)
        if body is None:
            self.send_error(404, "Not Found")
            return
        if path in srv.flip:
            body = body[:10] + bytes([body[10] ^ 0x01]) + body[11:]
        start = 0
        rng = self.headers.get("Range")
        if rng and srv.ranges:
            start = int(rng.split("=")[1].split("-")[0])
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(body) - start))
        self.end_headers()
        if path in srv.drop_once:
            srv.drop_once.discard(path)
            self.wfile.write(body[start:start + (len(body) - start) // 2])
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        self.wfile.write(body[start:])


@pytest.fixture
def server(monkeypatch, tmp_path):
    """A DataServer over the reference data; the environment of a fresh machine pointing at it."""
    root = require_data(UDHR_FILE).parents[2]
    srv = DataServer(root)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    monkeypatch.delenv("TEALEAVES_DATA", raising=False)
    monkeypatch.delenv("TEALEAVES_NO_FETCH", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("TEALEAVES_DATA_MIRROR", srv.url + "/data/")
    monkeypatch.setattr(fetch_mod, "BACKOFF", 0.0)
    monkeypatch.setattr(fetch_mod, "TIMEOUT", 5.0)
    yield srv
    srv.shutdown()
    srv.server_close()


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return code, out, err


def _cache_files(tmp_path: Path) -> list[Path]:
    base = tmp_path / "xdg" / "tealeaves"
    if not base.exists():
        return []
    return sorted(p for p in base.rglob("*") if p.is_file() and p.name != ".fetch.lock")


def test_fetch_from_mirror_verifies_and_locate_finds_it(server, tmp_path, capsys):
    udhr = registry.get("udhr")
    code, out, err = _run(["data", "fetch", "udhr"], capsys)
    assert code == 0, err
    cache_root = tmp_path / "xdg" / "tealeaves"
    assert f"fetching udhr (194.5 kB, 15 files) from {server.url}/data/ into {cache_root} ..." in err
    assert "udhr: 15 fetched, 0 already present (complete)" in out
    cache = tmp_path / "xdg" / "tealeaves" / "parallel" / "udhr"
    for entry in udhr.files:
        got = (cache / entry.path).read_bytes()
        assert got == (server.root / "parallel" / "udhr" / entry.path).read_bytes()
        assert hashlib.sha256(got).hexdigest() == entry.sha256
    assert not [p for p in _cache_files(tmp_path) if p.suffix == ".part"]
    assert data.locate(UDHR_FILE) == cache / "eng.articles.jsonl"
    # a second fetch finds everything present and downloads nothing
    n = len(server.requests)
    code, out, _ = _run(["data", "fetch", "parallel/udhr"], capsys)
    assert code == 0 and "0 fetched, 15 already present" in out and len(server.requests) == n


def test_corrupted_download_is_refused_and_leaves_nothing(server, tmp_path, capsys):
    path = "/data/parallel/udhr/raw/eng.txt"
    server.flip.add(path)
    body = (server.root / "parallel/udhr/raw/eng.txt").read_bytes()
    flipped = body[:10] + bytes([body[10] ^ 1]) + body[11:]
    expected = registry.get("udhr").file("raw/eng.txt").sha256
    code, _, err = _run(["data", "fetch", "udhr"], capsys)
    assert code == 1
    assert "tealeaves: error: 'raw/eng.txt' downloaded from" in err
    assert f"expected {expected}, got {hashlib.sha256(flipped).hexdigest()}" in err
    assert "the download was deleted" in err
    names = [p.name for p in _cache_files(tmp_path)]
    assert "eng.txt" not in names and not [n for n in names if n.endswith(".part")]


def test_interrupted_download_resumes_with_range(server, tmp_path, capsys):
    path = "/data/parallel/udhr/udhr2.xml"
    size = (server.root / "parallel/udhr/udhr2.xml").stat().st_size
    server.drop_once.add(path)
    code, _, err = _run(["data", "fetch", "udhr"], capsys)
    assert code == 0, err
    hits = [r for p, r in server.requests if p == path]
    assert hits == [None, f"bytes={size // 2}-"]
    assert "retrying" in err and "connection" in err
    got = (tmp_path / "xdg/tealeaves/parallel/udhr/udhr2.xml").read_bytes()
    assert hashlib.sha256(got).hexdigest() == registry.get("udhr").file("udhr2.xml").sha256


def test_server_without_range_restarts_cleanly(server, tmp_path, capsys):
    server.ranges = False
    entry = registry.get("udhr").file("raw/tur.txt")
    target = tmp_path / "xdg/tealeaves/parallel/udhr/raw"
    target.mkdir(parents=True)
    (target / "tur.txt.part").write_bytes(b"x" * 100)  # a previous, interrupted download
    code, _, err = _run(["data", "fetch", "udhr"], capsys)
    assert code == 0, err
    assert ("/data/parallel/udhr/raw/tur.txt", "bytes=100-") in server.requests
    assert "does not resume downloads; starting again from byte 0" in err
    assert hashlib.sha256((target / "tur.txt").read_bytes()).hexdigest() == entry.sha256
    assert not (target / "tur.txt.part").exists()


def test_404_is_a_clear_error(server, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("TEALEAVES_DATA_MIRROR", server.url + "/nowhere/")
    code, _, err = _run(["data", "fetch", "udhr"], capsys)
    assert code == 1
    assert "tealeaves: error: HTTP 404 Not Found for " + server.url + "/nowhere/parallel/udhr/" in err
    assert "mirror" in err
    assert _cache_files(tmp_path) == []


def test_connection_refused_is_a_clear_error(server, tmp_path, capsys, monkeypatch):
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(fetch_mod, "ATTEMPTS", 2)
    code, _, err = _run(["data", "fetch", "udhr", "--mirror", f"http://127.0.0.1:{port}/"], capsys)
    assert code == 1
    assert f"cannot reach 127.0.0.1:{port}: Connection refused (after 2 attempts)" in err
    assert "retrying in 0 s (1/1)" in err


def _publisher(dataset: registry.Dataset, server: DataServer, archive_bytes: bytes) -> registry.Dataset:
    """``dataset`` with its URLs pointing at ``server``: the archive at /pub/<name>, files at /data/."""
    archives = {k: dataclasses.replace(a, url=f"{server.url}/pub/{a.url.rsplit('/', 1)[1]}")
                for k, a in dataset.archives.items()}
    for a in archives.values():
        server.extra[a.url[len(server.url):]] = archive_bytes
    files = tuple(dataclasses.replace(f, url=f"{server.url}/data/{dataset.folder}/{f.path}") if f.url else f
                  for f in dataset.files)
    return dataclasses.replace(dataset, archives=archives, files=files)


def test_zip_archive_from_the_publisher(server, tmp_path, monkeypatch):
    monkeypatch.delenv("TEALEAVES_DATA_MIRROR")
    udhr = registry.get("udhr")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:  # NLTK's udhr2.zip layout
        for f in (server.root / "parallel/udhr/raw").iterdir():
            z.writestr(f"udhr2/{f.name}", f.read_bytes())
        z.writestr("udhr2/README", "other members are ignored")
    ds = _publisher(udhr, server, buf.getvalue())
    err = io.StringIO()
    report = fetch_mod.fetch_dataset(ds, stream=err)
    assert sorted(report.fetched) == sorted(f.path for f in udhr.files if not f.derived)
    assert sorted(report.unavailable) == sorted(f.path for f in udhr.files if f.derived)
    assert "is not published by the source" in report.unavailable["eng.articles.jsonl"]
    cache = tmp_path / "xdg/tealeaves/parallel/udhr"
    for entry in udhr.files:
        if not entry.derived:
            reference = server.root / "parallel/udhr" / entry.path
            assert (cache / entry.path).read_bytes() == reference.read_bytes()
    assert not (cache / "README").exists()
    assert list((tmp_path / "xdg/tealeaves/.downloads").iterdir()) == []  # the archive is deleted


def test_tar_gz_archive_from_the_publisher_resumes(server, tmp_path, monkeypatch):
    monkeypatch.delenv("TEALEAVES_DATA_MIRROR")
    flores = registry.get("flores200")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:  # the FLORES-200 tarball layout, "./"-prefixed
        for entry in flores.files:
            if not entry.derived:
                tar.add(server.root / flores.folder / entry.path, arcname=f"./{entry.member}")
    ds = _publisher(flores, server, buf.getvalue())
    server.drop_once.add("/pub/flores200_dataset.tar.gz")
    report = fetch_mod.fetch_dataset(ds, stream=io.StringIO())
    assert [r for p, r in server.requests] == [None, f"bytes={len(buf.getvalue()) // 2}-"]
    assert len(report.fetched) == 12 and len(report.unavailable) == 8
    dev = tmp_path / "xdg/tealeaves/parallel/flores200/devtest/eng_Latn.devtest"
    assert dev.read_bytes() == (server.root / "parallel/flores200/devtest/eng_Latn.devtest").read_bytes()


def test_archive_under_a_top_folder_and_a_missing_member(server, tmp_path, monkeypatch):
    monkeypatch.delenv("TEALEAVES_DATA_MIRROR")
    udhr = registry.get("udhr")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:  # one more folder level, and raw/tur.txt left out
        for f in (server.root / "parallel/udhr/raw").iterdir():
            if f.name != "tur.txt":
                z.writestr(f"corpora/udhr2/{f.name}", f.read_bytes())
    ds = _publisher(udhr, server, buf.getvalue())
    with pytest.raises(fetch_mod.FetchError, match="has no member 'udhr2/tur.txt'"):
        fetch_mod.fetch_dataset(ds, stream=None)
    cache = tmp_path / "xdg/tealeaves/parallel/udhr/raw"
    assert (cache / "amh.txt").read_bytes() == (server.root / "parallel/udhr/raw/amh.txt").read_bytes()
    assert not (cache / "tur.txt").exists() and not list(cache.glob("*.part"))
    assert list((tmp_path / "xdg/tealeaves/.downloads").iterdir()) == []


def test_corrupt_archive_is_refused(server, tmp_path, monkeypatch):
    monkeypatch.delenv("TEALEAVES_DATA_MIRROR")
    ds = _publisher(registry.get("flores200"), server, b"\x1f\x8b not really gzip")
    with pytest.raises(fetch_mod.FetchError, match="is not a readable tar.gz file"):
        fetch_mod.fetch_dataset(ds, stream=None)
    assert not list((tmp_path / "xdg/tealeaves/.downloads").iterdir())


def test_locate_fetches_announced_when_allowed(server, tmp_path, capsys):
    path = data.locate(UDHR_FILE, fetch=True)
    assert path == tmp_path / "xdg/tealeaves" / UDHR_FILE
    assert "fetching udhr (194.5 kB, 15 files)" in capsys.readouterr().err


def test_locate_inside_pytest_does_not_fetch(server, monkeypatch):
    # require_data (tests/conftest.py) calls data.locate(relative): the suite sets TEALEAVES_NO_FETCH=1
    # (the `server` fixture lifted it for this test), so a test skips rather than downloads
    monkeypatch.setenv("TEALEAVES_NO_FETCH", "1")
    with pytest.raises(data.DataNotFoundError, match="tealeaves data fetch udhr"):
        data.locate(UDHR_FILE)
    assert not data.has(UDHR_FILE)  # has() never fetches
    assert server.requests == []


@pytest.mark.parametrize("env, expected", [
    ({}, True),
    ({"TEALEAVES_NO_FETCH": "1"}, False),
    ({"TEALEAVES_NO_FETCH": "0"}, True),
    ({"TEALEAVES_DATA": "/somewhere"}, False),
])
def test_fetch_rule(monkeypatch, env, expected):
    for name in ("TEALEAVES_NO_FETCH", "TEALEAVES_DATA"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert data.fetch_allowed() is expected
    assert data.fetch_allowed(True) is True and data.fetch_allowed(False) is False


def test_list_shows_where_each_data_set_is(server, tmp_path, capsys, monkeypatch):
    assert _run(["data", "fetch", "udhr", "--quiet"], capsys)[0] == 0
    code, out, _ = _run(["data", "list", "--format", "json"], capsys)
    import json

    rows = {r["name"]: r for r in json.loads(out)}
    assert set(rows) == set(registry.datasets())
    assert rows["udhr"]["status"] == "present"
    assert rows["udhr"]["where"] == f"cache ({tmp_path / 'xdg' / 'tealeaves'})"
    assert rows["udhr"]["licence"] == "public domain (udhr2.xml)"
    assert rows["reuters21578"]["status"] == "missing"
    assert "kdd.ics.uci.edu" in rows["reuters21578"]["source"]
    # TEALEAVES_DATA wins and is named as such
    monkeypatch.setenv("TEALEAVES_DATA", str(server.root))
    code, out, _ = _run(["data", "list"], capsys)
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("reuters21578 "))
    assert "present" in line and f"TEALEAVES_DATA ({server.root})" in line


def test_reference_copy_matches_the_registry(capsys):
    root = require_data(UDHR_FILE).parents[2]
    total = sum(len(d.files) for d in registry.datasets().values())
    present = sum((root / d.folder / f.path).is_file() for d in registry.datasets().values() for f in d.files)
    code, out, _ = _run(["data", "verify"], capsys)
    assert code == 0 and out.strip() == f"{present} files verified, 0 differ, {total - present} missing"
    # an independent recomputation for one file
    entry = registry.get("udhr").file("udhr2.xml")
    blob = (root / "parallel/udhr/udhr2.xml").read_bytes()
    assert (len(blob), hashlib.sha256(blob).hexdigest()) == (entry.size, entry.sha256)


def test_progress_bar_on_a_terminal_and_lines_otherwise():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty, plain = Tty(), io.StringIO()
    for stream in (tty, plain):
        p = fetch_mod.Progress("f.txt", 4000, stream)
        for _ in range(4):
            p._last -= fetch_mod.PLAIN_EVERY  # let every update draw
            p.update(1000)
        p.finish()
    assert "\r[######" in tty.getvalue() and "4.0 kB / 4.0 kB 100%" in tty.getvalue()
    lines = plain.getvalue().splitlines()
    assert "\r" not in plain.getvalue()
    done = [ln.split(":")[1].split("/")[0].strip() for ln in lines[:-1]]
    assert done == ["1.0 kB", "2.0 kB", "3.0 kB", "4.0 kB"]
    assert "ETA" in lines[0] and lines[-1].startswith("f.txt: 4.0 kB in ")
    quiet = io.StringIO()  # plain: a line per PLAIN_EVERY seconds, so a quick file prints only the last
    p = fetch_mod.Progress("g.txt", 4000, quiet)
    for _ in range(4):
        p.update(1000)
    p.finish()
    assert quiet.getvalue().count("\n") == 1 and quiet.getvalue().startswith("g.txt: 4.0 kB in ")
