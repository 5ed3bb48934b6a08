"""A full disk during every command that writes a file: a clean ``disk is full`` error, nothing left behind.

Each command runs in a subprocess inside a private mount namespace (``unshare -rm``) whose output
folder is a small ``tmpfs`` filled to the last block, so every writer (Python files, NumPy, SQLite,
the index writer, downloads) meets a real ``ENOSPC``.  The command must exit 1 with one
``tealeaves: error: ... disk is full ...`` line and no traceback; the folder must hold exactly what it
held before (no partial output, no temporary file), and an output that existed is unchanged byte for
byte.  Skipped where the kernel refuses an unprivileged mount namespace.

Marked ``slow``: CI runs one command of each way of writing (:data:`CI`: a store created and resumed,
``Result.emit``, the index writer, an output folder, a study, a download); ``TEALEAVES_FULL=1`` runs every
command of :data:`COMMANDS`.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from conftest import DOCS, FULL, require_data, write_jsonl, write_text

SRC = Path(__file__).resolve().parents[2] / "src"
WORDS = {"cat": "katten", "mat": "mattan", "dog": "hund", "sat": "satt", "bird": "fagel", "fish": "fisk"}
SCRIPT = r"""
mount -t tmpfs -o size=512k tmpfs "$DISK" || exit 97
if [ -n "$EXISTING" ]; then cp -a "$EXISTING" "$DISK/"; fi
dd if=/dev/zero of="$DISK/.fill" bs=4096 >/dev/null 2>&1
"$@" >"$LOG.out" 2>"$LOG.err"
echo $? >"$LOG.rc"
cd "$DISK" && find . -mindepth 1 ! -name .fill | sort >"$LOG.ls"
if [ -n "$EXISTING" ]; then sha256sum "$(basename "$EXISTING")" >"$LOG.sha"; fi
"""


def _tealeaves(*argv, cwd: Path, env: dict | None = None) -> None:
    full = {**os.environ, "PYTHONPATH": str(SRC), **(env or {})}
    run = subprocess.run([sys.executable, "-m", "tealeaves", *map(str, argv)], cwd=cwd, env=full,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr


@functools.cache
def _namespaces() -> bool:
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs tmpfs /mnt"], capture_output=True)
    return probe.returncode == 0


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Every input the writing commands read, built by the commands themselves on an ordinary disk."""
    if shutil.which("unshare") is None or not _namespaces():
        pytest.skip("no unprivileged mount namespace here (unshare -rm), so no small disk to fill")
    root = tmp_path_factory.mktemp("full_disk_inputs")
    write_text(root / "docs.txt", "".join(d + "\n" for d in DOCS))
    write_text(root / "test.txt", "".join(d + "\n" for d in DOCS[:8]))
    write_text(root / "topics.txt", "cat dog mat\nsun moon star\n")
    rng = np.random.default_rng(0)
    rows = []
    for i in range(20):
        en = [str(w) for w in rng.choice(list(WORDS), 6)]
        rows.append({"id": f"d{i}", "en": " ".join(en), "sv": " ".join(WORDS[w] for w in en)})
    write_jsonl(root / "t.jsonl", rows)
    write_text(root / "en-sv.txt", "".join(f"{en} {sv}\n" for en, sv in WORDS.items()))
    write_text(root / "survey.csv", "dataset,model,topic,WorkerId,Answer\nd,m,0,w1,2\nd,m,1,w1,3\n"
               "d,m,0,w2,1\nd,m,1,w2,3\n")
    steps = [
        ["sweep", "docs.txt", "-k", "2", "3", "--seeds", "1", "-o", "s.sqlite"],
        ["sweep", "docs.txt", "-k", "2", "--seeds", "1", "-o", "small.sqlite"],
        ["pltm", "fit", "t.jsonl", "-k", "3", "--n-chains", "1", "--n-iter", "10", "--max-df", "1",
         "--seed", "1", "-o", "pltm-model"],
        ["pltm", "topics", "pltm-model", "-o", "ptopics.json"],
        ["index", "build-aligned", "t.jsonl", "-o", "aref"],
        ["estimator", "features", "ptopics.json", "--reference", "aref", "--rich", "aref", "--dictionary",
         "en-sv.txt", "-o", "feats.csv"],
        ["estimator", "train", "feats.csv", "--features", "base,gap", "-o", "est.json"],
        ["human", "build-study", "s.sqlite#sklearn-K2-s0", "-o", "study.json"],
    ]
    for argv in steps:
        _tealeaves(*argv, cwd=root)
    study = json.loads((root / "study.json").read_text(encoding="utf-8"))
    lines = ["item_id,annotator,response"]
    for annotator, rating in (("ann", "2"), ("bob", "1"), ("cat", "0")):
        for item in study["items"]:
            response = item.get("answer") if item["task"] == "word_intrusion" else (
                "0" if item.get("check") else rating)
            lines.append(f"{item['id']},{annotator},{response}")
    write_text(root / "judgments.csv", "\n".join(lines) + "\n")
    return root


@pytest.fixture(scope="module")
def mirror():
    """A local HTTP mirror of the data root (what ``data fetch --mirror`` downloads from)."""
    root = require_data("parallel/udhr/eng.articles.jsonl").parents[2]
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


#: (name, argv with OUT for the output path on the full disk, the output's name, an existing output to keep).
COMMANDS = [
    ("sweep", ["sweep", "docs.txt", "-k", "2", "--seeds", "1", "-o", "OUT"], "new.sqlite", None),
    ("sweep-resume", ["sweep", "docs.txt", "-k", "2", "3", "--seeds", "1", "-o", "OUT"], "small.sqlite",
     "small.sqlite"),
    ("evaluate", ["evaluate", "docs.txt", "a=s.sqlite#sklearn-K2-s0", "--test", "test.txt", "-o", "OUT"],
     "e.sqlite", None),
    ("report-html", ["report", "s.sqlite", "-o", "OUT"], "r.html", None),
    ("report-json", ["report", "s.sqlite", "--format", "json", "-o", "OUT"], "r.json", "study.json"),
    ("compare", ["compare", "s.sqlite", "--models", "sklearn-K2-s0", "sklearn-K3-s0", "-o", "OUT"], "c.json",
     None),
    ("coherence", ["coherence", "--reference", "docs.txt", "--topics", "topics.txt", "-o", "OUT"], "c.csv",
     "feats.csv"),
    ("perplexity", ["perplexity", "s.sqlite#sklearn-K2-s0", "test.txt", "--tokenized", "-o", "OUT"], "p.json",
     None),
    ("index-build", ["index", "build", "docs.txt", "-o", "OUT"], "ref.tlx", None),
    ("index-build-sharded", ["index", "build", "docs.txt", "-j", "2", "-o", "OUT"],
     "ref.tlx", None),
    ("index-build-aligned", ["index", "build-aligned", "t.jsonl", "-o", "OUT"], "aref2", None),
    ("pltm-fit", ["pltm", "fit", "t.jsonl", "-k", "3", "--n-chains", "1", "--n-iter", "10", "--max-df", "1",
                  "-o", "OUT"], "model2", None),
    ("pltm-topics", ["pltm", "topics", "pltm-model", "-o", "OUT"], "ptopics.json", "ptopics.json"),
    ("pltm-infer", ["pltm", "infer", "pltm-model", "t.jsonl", "-o", "OUT"], "theta.npy", None),
    ("cnpmi", ["cnpmi", "ptopics.json", "--reference", "aref", "-o", "OUT"], "cn.json", None),
    ("estimator-features", ["estimator", "features", "ptopics.json", "--reference", "aref", "--rich", "aref",
                            "--dictionary", "en-sv.txt", "-o", "OUT"], "f.csv", None),
    ("estimator-train", ["estimator", "train", "feats.csv", "--features", "base,gap", "-o", "OUT"],
     "est.json", "est.json"),
    ("estimator-apply", ["estimator", "apply", "est.json", "feats.csv", "-o", "OUT"], "estimates.csv", None),
    ("human-build-study", ["human", "build-study", "s.sqlite#sklearn-K2-s0", "-o", "OUT"], "study.json",
     "study.json"),
    ("human-export-items", ["human", "export-items", "study.json", "-o", "OUT"], "items.csv", None),
    ("human-import", ["human", "import", "survey.csv", "--item", "dataset,model,topic", "--annotator",
                      "WorkerId", "--response", "Answer", "--task", "rating", "--scale", "1-3", "-o", "OUT"],
     "judgments.csv", None),
    ("human-score", ["human", "score", "judgments.csv", "--study", "study.json", "-o", "OUT"], "hs.json",
     None),
]


#: The commands CI runs (every one with TEALEAVES_FULL=1).
CI = {"sweep", "sweep-resume", "report-json", "index-build", "index-build-aligned", "pltm-fit",
      "estimator-train",
      "human-build-study"}
pytestmark = pytest.mark.slow


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_on_full_disk(argv, inputs: Path, disk: Path, existing: Path | None = None,
                     env: dict | None = None) -> dict:
    """Run ``tealeaves argv`` with ``disk`` a full tmpfs; return its exit status, stderr, what ``disk`` holds
    after it (``.fill`` aside) and the SHA-256 of the ``existing`` file copied there before filling.
    ``env`` adds to the environment (a value ``None`` unsets the variable)."""
    disk.mkdir(exist_ok=True)
    log = disk.parent / f"{disk.name}.log"
    full = {**os.environ, "PYTHONPATH": str(SRC), "DISK": str(disk), "LOG": str(log),
            "EXISTING": str(existing or ""), **(env or {}), "TEALEAVES_DEBUG": None}
    full = {k: v for k, v in full.items() if v is not None}  # None: unset
    run = subprocess.run(["unshare", "-rm", "sh", "-c", SCRIPT, "sh", sys.executable, "-m", "tealeaves",
                          *map(str, argv)], cwd=inputs, env=full, capture_output=True, text=True, timeout=600)
    assert run.returncode != 97, run.stderr
    read = functools.partial(Path.read_text, encoding="utf-8")
    listing = read(Path(f"{log}.ls")).split()
    sha = read(Path(f"{log}.sha")).split()[0] if existing else None
    return {"code": int(read(Path(f"{log}.rc"))), "err": read(Path(f"{log}.err")),
            "out": read(Path(f"{log}.out")), "files": [p.removeprefix("./") for p in listing], "sha": sha}


def assert_full_disk_refused(result: dict, kept: list[str]) -> None:
    """Exit 1, one ``tealeaves: error:`` line saying the disk is full, the disk holding only ``kept``."""
    err = result["err"]
    assert "Traceback" not in err, err
    assert result["code"] == 1, err
    errors = [ln for ln in err.splitlines() if ln.startswith("tealeaves: error: ")]
    assert len(errors) == 1 and err.splitlines()[-1] == errors[0], err
    assert "disk is full" in errors[0] or "disk holding" in errors[0] and "is full" in errors[0], err
    assert result["files"] == sorted(kept), (result["files"], err)


@pytest.mark.parametrize("name, argv, out, existing", [c for c in COMMANDS if FULL or c[0] in CI],
                         ids=[c[0] for c in COMMANDS if FULL or c[0] in CI])
def test_full_disk_during_a_writing_command(inputs, tmp_path, name, argv, out, existing):
    disk = tmp_path / "disk"
    argv = [str(disk / out) if a == "OUT" else a for a in argv]
    before = inputs / existing if existing else None
    if before is not None and before.name != out:  # keep an existing file under the output's name
        shutil.copy(before, tmp_path / out)
        before = tmp_path / out
    result = run_on_full_disk(argv, inputs, disk, before)
    assert_full_disk_refused(result, [out] if before else [])
    if before is not None:
        assert result["sha"] == _sha(before)  # the existing output is unchanged


def test_full_disk_during_data_fetch(inputs, tmp_path, mirror):
    disk = tmp_path / "disk"
    env = {"XDG_CACHE_HOME": str(disk), "TEALEAVES_DATA": None}
    result = run_on_full_disk(["data", "fetch", "udhr", "--mirror", mirror], inputs, disk, env=env)
    # the cache's folders and its lock file may stay (a rerun reuses them); no file of the data set does
    folders = ["tealeaves", "tealeaves/parallel", "tealeaves/parallel/udhr"]
    kept = [f for f in result["files"] if f in folders or f == "tealeaves/.fetch.lock"]
    assert_full_disk_refused(result, kept)
    assert "downloaded file" in result["err"] and ".part" not in result["err"]
