"""Packaging: a light start-up, and a core install without extras that works and names missing extras."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
#: Modules that must not be imported by ``import tealeaves`` or ``tealeaves --help``: each costs
#: 0.1-1 s of start-up (benchmarks/startup.py measures the times).
HEAVY = ("numba", "pandas", "scipy", "sklearn", "matplotlib", "gensim", "tomotopy", "jieba", "bertopic")


def _imported_after(code: str) -> set[str]:
    probe = f"import sys\n{code}\nprint(' '.join(sorted(m.split('.')[0] for m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONWARNINGS": "ignore"})
    return set(out.stdout.split())


@pytest.mark.parametrize("code", [
    "import tealeaves",
    "import tealeaves.models.adapters",
    "from tealeaves.cli import build_parser; build_parser().format_help()",
    # ``tealeaves --help`` itself: the entry point (``python -m tealeaves``), its help text discarded
    "import contextlib, io, runpy; sys.argv = ['tealeaves', '--help']\n"
    "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
    "    runpy.run_module('tealeaves', run_name='__main__')",
])
def test_start_up_imports_no_heavy_module(code):
    loaded = _imported_after(code)
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


@pytest.mark.skipif(os.environ.get("TEALEAVES_SKIP_INSTALL_TEST") == "1",
                    reason="TEALEAVES_SKIP_INSTALL_TEST=1")
def test_core_install_without_extras(tmp_path):
    """`pip install .` with no extras: coherence of a word-list file works; an absent extra is named."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", str(REPO)], check=True, capture_output=True)
    pip_list = subprocess.run([str(py), "-m", "pip", "list"], capture_output=True, text=True).stdout.lower()
    assert "gensim" not in pip_list and "tomotopy" not in pip_list and "jieba" not in pip_list
    ref = tmp_path / "ref.txt"
    ref.write_text("oil gas price\noil price barrel\ngas pipeline\nwheat grain\ngrain wheat corn\n")
    topics = tmp_path / "topics.txt"
    topics.write_text("oil gas price\nwheat grain corn\n")
    out = subprocess.run([str(venv / "bin" / "tealeaves"), "coherence", "--reference", str(ref), "--topics",
                          str(topics), "--measure", "umass", "--top", "3", "--format", "json"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    from tealeaves.coherence import coherence  # the same computation in this (full) environment

    expected = coherence(str(topics), reference=[ln.split() for ln in ref.read_text().splitlines()],
                         measure="umass", top_n=3)
    got = json.loads(out.stdout)
    assert [t["score"] for t in got["topics"]] == pytest.approx(expected.scores, abs=1e-12)
    # a gensim model object while gensim is not installed: the adapter names the extra
    probe = textwrap.dedent("""
        from tealeaves import load_model
        from tealeaves.errors import MissingDependencyError

        FakeLda = type("LdaModel", (), {"__module__": "gensim.models.ldamodel"})
        try:
            load_model(FakeLda())
        except MissingDependencyError as exc:
            print(exc)
    """)
    res = subprocess.run([str(py), "-c", probe], capture_output=True, text=True, cwd=tmp_path)
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr
    assert "pip install 'tealeaves[gensim]'" in res.stdout, res.stdout
