"""The test command's ``--dist loadgroup`` keeps each ``xdist_group`` on one worker.

Several tests share costly fixtures (fitted Reuters models, the Bible reproduction, the interrupt
tests' index) through a disk cache and an ``xdist_group`` mark, so one worker builds them while the
other runs other tests.  pytest 9.2 builds node ids from a structured id, and pytest-xdist 3.8 then
silently ignores the marks (the test extra pins ``pytest<9.2``): the groups were split across both
workers, one worker waited minutes on the other's cache lock, and CI's run doubled.  This runs a
small grouped module under the same options as ``scripts/test.sh`` and asserts one worker ran it.
"""

from __future__ import annotations

import subprocess
import sys


def test_xdist_group_runs_on_one_worker(tmp_path):
    (tmp_path / "test_grouped.py").write_text(
        "import os, time, pytest\n"
        "pytestmark = pytest.mark.xdist_group('shared')\n"
        "@pytest.mark.parametrize('i', range(6))\n"
        "def test_member(i):\n"
        "    time.sleep(0.1)\n"
        f"    with open({str(tmp_path / 'workers.txt')!r}, 'a') as fh:\n"
        "        fh.write(os.environ['PYTEST_XDIST_WORKER'] + '\\n')\n",
        encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                          "--dist", "loadgroup", "test_grouped.py"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    workers = (tmp_path / "workers.txt").read_text().split()
    assert len(workers) == 6
    assert len(set(workers)) == 1, f"the group was split over workers {sorted(set(workers))}"
