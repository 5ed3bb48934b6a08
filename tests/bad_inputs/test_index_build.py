"""Bad inputs of ``tealeaves index build`` and the options it shares with ``index build-aligned``: the
``--memory`` budget (its spellings, the smallest budget, the ceiling of the machine, of ``--workers`` and of a
``--scheduler``'s workers; ``memory=`` of the builders), ``--name``, an empty ``-o``, a key given twice in a
corpus or links record.

Each case asserts a clean error (exit code, ``tealeaves: error:`` and a fragment, no traceback; the error
class through the API) and that no output is left behind, or a documented value.  A comment "before:" says
what the case did before its fix."""

from __future__ import annotations

import re

import pytest

from conftest import write_jsonl as _jsonl
from conftest import write_text as _write
from conftest import write_tuples as _tuples
from tealeaves.errors import ParameterError


# -- --memory: its spellings ---------------------------------------------------------------------------------
@pytest.fixture
def small(tmp_path):
    return _jsonl(tmp_path / "d.jsonl", [{"id": 1, "text": "cat dog"}, {"id": 2, "text": "cat mat"}])


@pytest.fixture
def small_tuples(tmp_path):
    return _jsonl(tmp_path / "t.jsonl", [{"id": 1, "en": "cat dog", "sv": "katt hund"}])


def _physical(monkeypatch, size):
    from tealeaves.index import memory as build

    monkeypatch.setattr(build, "physical_memory", lambda: (size, "this machine's physical memory"))


COMMANDS = ["index build", "index build-aligned"]


@pytest.mark.parametrize("value, expected", [("1 G", 1 << 30), ("1GiB", 1 << 30), ("1.5G", 3 << 29),
                                             ("1 gib", 1 << 30), (" 512m ", 512 << 20), ("5e2M", 500 << 20),
                                             (str(450 << 20), 450 << 20)])
def test_memory_spellings_accepted(value, expected):
    from tealeaves.index.memory import parse_memory

    assert parse_memory(value) == expected


def test_parse_memory_units():
    from tealeaves.index.memory import parse_memory

    assert parse_memory("1G") == 1 << 30
    assert parse_memory("2.5GB") == int(2.5 * (1 << 30))
    assert parse_memory("800MiB") == parse_memory("800m") == 800 << 20
    assert parse_memory(str(500 << 20)) == 500 << 20


@pytest.mark.parametrize("value, fragment", [
    ("0", "--memory '0' is below the smallest budget (400 MiB)"),
    ("-1", "--memory '-1' is below the smallest budget (400 MiB)"),
    ("=-1G", "--memory '-1G' is below the smallest budget"),  # (--memory -1G: argparse reads an option)
    ("1e3", "--memory '1e3' is below the smallest budget"),  # a plain number is bytes
    ("huge", "--memory 'huge' is not a size"),
    ("", "--memory '' is not a size"),
    ("G", "--memory 'G' is not a size"),
    ("1e30", "--memory '1e30' is more than this machine's physical memory"),
    ("1e18G", "--memory '1e18G' is more than this machine's physical memory"),
])
def test_memory_spellings_refused(tmp_path, cli_error, small, value, fragment):
    memory = ["--memory" + value] if value.startswith("=") else ["--memory", value]
    cli_error(["index", "build", small, "-o", tmp_path / "out.tlx", *memory], fragment)
    assert not (tmp_path / "out.tlx").exists()


def test_memory_spelled_as_a_negative_option_is_a_usage_error(tmp_path, cli_error, small):
    cli_error(["index", "build", small, "-o", tmp_path / "out.tlx", "--memory", "-1G"],
              "argument --memory: expected one argument", code=2)


@pytest.mark.parametrize("n, text", [(1000 << 20, "1000 MiB"), (1023 << 20, "1023 MiB"),
                                     ((1 << 30) - 1, "1024 MiB"), (1 << 30, "1 GiB"),
                                     (int(23.5 * (1 << 30)), "23.5 GiB"),
                                     (10000 << 40, "10000 TiB"), (399 << 20, "399 MiB")])
def test_size_text_has_no_exponent(n, text):
    from tealeaves.index.memory import size_text

    assert size_text(n) == text


# -- --memory: bounded below and by the machine --------------------------------------------------------------
@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("value, fragment", [
    ("10000T", "--memory '10000T' is more than this machine's physical memory ("),
    ("nan", "--memory 'nan' is not a size"),
    ("inf", "--memory 'inf' is not a size"),
    ("1e400G", "--memory '1e400G' is not a size"),
    ("399M", "--memory '399M' is below the smallest budget (400 MiB)"),
    ("1GG", "--memory '1GG' is not a size"),
])
def test_memory_out_of_bounds(tmp_path, cli_error, small, small_tuples, command, value, fragment):
    # before: --memory 10000T was accepted: the chunk size followed it, so nothing bounded the memory
    src = small_tuples if "aligned" in command else small
    cli_error([*command.split(), src, "-o", tmp_path / "out", "--memory", value], fragment)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", COMMANDS)
def test_memory_ceiling_is_the_physical_memory(tmp_path, cli_error, run_cli, monkeypatch, small, small_tuples,
                                               command):
    _physical(monkeypatch, 1 << 30)
    src = small_tuples if "aligned" in command else small
    r = cli_error([*command.split(), src, "-o", tmp_path / "out", "--memory", "1025M"],
                  "--memory '1025M' is more than this machine's physical memory (1 GiB)")
    assert "give at most 1024M" in r.err
    assert run_cli([*command.split(), src, "-o", tmp_path / "out", "--memory", "1024M"]).code == 0


def test_the_ceiling_is_the_physical_memory_or_a_lower_container_limit(tmp_path, monkeypatch):
    import os

    from tealeaves.index import memory as build

    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    limits = [_write(tmp_path / "v2", "max\n"), _write(tmp_path / "v1", f"{1 << 30}\n")]
    monkeypatch.setattr(build, "CGROUP_LIMITS", (str(limits[0]), str(tmp_path / "missing")))
    assert build.physical_memory() == (total, "this machine's physical memory")  # 'max': no limit
    monkeypatch.setattr(build, "CGROUP_LIMITS", (str(limits[0]), str(limits[1])))
    assert build.physical_memory() == (min(total, 1 << 30), "this container's memory limit"
                                       if total > 1 << 30 else "this machine's physical memory")
    with pytest.raises(ParameterError, match=re.escape("(1 GiB)")):
        build.parse_memory("2G")


@pytest.mark.parametrize("command", COMMANDS)
def test_memory_of_local_workers_is_summed(tmp_path, cli_error, monkeypatch, small, small_tuples, command):
    pytest.importorskip("distributed")
    _physical(monkeypatch, 3 << 29)  # 1.5 GiB: one 1G worker fits, two do not
    src = small_tuples if "aligned" in command else small
    r = cli_error([*command.split(), src, "-o", tmp_path / "out", "--memory", "1G", "--workers", "2"],
                  "--memory 1 GiB for each of --n-jobs 2 is 2 GiB in all, more than this machine's physical "
                  "memory (1.5 GiB)")
    assert "give at most 768M, or fewer --n-jobs" in r.err


@pytest.mark.parametrize("value, workers, fragment", [
    # before: "--memory 1e+03 MiB for each of --n-jobs 2 ..."
    ("1000M", "2", "--memory 1000 MiB for each of --n-jobs 2 is 1.95 GiB in all, more than this machine's "
                   "physical memory (1.5 GiB) (give at most 768M, or fewer --n-jobs)"),
    ("1 G", "2", "--memory 1 GiB for each of --n-jobs 2 is 2 GiB in all"),
    ("1.6G", "1", "--memory '1.6G' is more than this machine's physical memory (1.5 GiB)"),
])
def test_memory_with_workers(tmp_path, cli_error, monkeypatch, small, value, workers, fragment):
    pytest.importorskip("distributed")
    from tealeaves.index import memory as build

    monkeypatch.setattr(build, "physical_memory", lambda: (3 << 29, "this machine's physical memory"))
    cli_error(["index", "build", small, "-o", tmp_path / "out.tlx", "--memory", value, "--workers", workers],
              fragment)
    assert not (tmp_path / "out.tlx").exists()
    assert build.parse_memory("1.5G") == 3 << 29  # exactly the machine: accepted


def dask_memory_manager_off():
    """A Dask config in which an in-process worker never pauses, spills or stops for the process's memory."""
    import dask

    return dask.config.set({f"distributed.worker.memory.{key}": False
                            for key in ("target", "spill", "pause", "terminate")})


def test_memory_on_a_scheduler_is_bounded_by_its_workers(tmp_path, cli_error, run_cli, monkeypatch, small):
    distributed = pytest.importorskip("distributed")
    _physical(monkeypatch, 450 << 20)  # this machine's memory does not bound a remote cluster
    # The worker runs in this (test) process, whose RSS Dask would compare with the 600 MiB limit: late in a
    # full run it passes 80% and the worker pauses for good (the build then waits forever). The limit is what
    # is tested, not Dask's memory manager, so the manager's pause/spill/terminate are off.
    with dask_memory_manager_off(), distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, memory_limit="600MiB", dashboard_address=":0",
            silence_logs=50) as cluster:
        address = cluster.scheduler_address
        argv = ["index", "build", small, "-o", tmp_path / "x.tlx", "--scheduler", address, "--memory"]
        cli_error([*argv, "1G"], f"--memory 1 GiB is more than the memory limit of a Dask worker of "
                                 f"{address} (600 MiB)")
        assert not (tmp_path / "x.tlx").exists()
        ok = run_cli([*argv, "500M"])
        assert ok.code == 0, ok.err


@pytest.mark.parametrize("physical, value, workers, fragment", [
    # before: "(give at most 376M, or fewer --n-jobs)", a size --memory refuses (below 400M)
    (int(23.5 * (1 << 30)), "400M", "64",
     "--memory 400 MiB for each of --n-jobs 64 is 25 GiB in all, more than this machine's physical memory "
     "(23.5 GiB) (give at most --n-jobs 60 (each needs at least 400 MiB), or build on an existing Dask "
     "cluster (--scheduler))"),
    # before: "(give at most 300M: ...)" on a machine smaller than the smallest budget
    (300 << 20, "400M", None,
     "--memory '400M' is more than this machine's physical memory (300 MiB) (a build process needs at least "
     "400 MiB: build on a larger machine, or on an existing Dask cluster (--scheduler))"),
])
def test_memory_advice_is_a_budget_the_parser_accepts(tmp_path, cli_error, monkeypatch, small, physical,
                                                      value, workers, fragment):
    if workers:
        pytest.importorskip("distributed")
    from tealeaves.index import memory as build

    monkeypatch.setattr(build, "physical_memory", lambda: (physical, "this machine's physical memory"))
    extra = ["--workers", workers] if workers else []
    cli_error(["index", "build", small, "-o", tmp_path / "out.tlx", "--memory", value, *extra], fragment)


def test_scheduler_workers_below_the_smallest_budget(tmp_path, cli_error, small):
    # before: "(give at most --memory 300M, or workers with more memory)", a size --memory refuses
    distributed = pytest.importorskip("distributed")
    with dask_memory_manager_off(), distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, memory_limit="300MiB", dashboard_address=":0",
            silence_logs=50) as cluster:
        address = cluster.scheduler_address
        cli_error(["index", "build", small, "-o", tmp_path / "x.tlx", "--scheduler", address, "--memory",
                   "400M"],
                  f"--memory 400 MiB is more than the memory limit of a Dask worker of {address} (300 MiB) "
                  "(give the workers a memory limit of at least 400 MiB, the smallest budget)")


@pytest.mark.parametrize("memory, fragment", [
    (10 ** 16, "memory=10000000000000000 is more than this machine's physical memory"),
    (1.5e9, "memory must be a whole number >= 419430400, got 1500000000.0 (float)"),
    (100, "memory must be a whole number >= 419430400, got 100"),
    (True, "memory must be a whole number"),
])
@pytest.mark.parametrize("builder", ["build_streaming", "build_aligned_index"])
def test_memory_argument_of_the_builders(tmp_path, small, small_tuples, memory, fragment, builder):
    from tealeaves.index.aligned import build_aligned_index
    from tealeaves.index.streaming import build_streaming

    fn, src = ((build_streaming, small) if builder == "build_streaming" else
               (build_aligned_index, small_tuples))
    with pytest.raises(ParameterError, match=re.escape(fragment)):
        fn([src], tmp_path / "out", memory=memory)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.jsonl", "t.jsonl"]  # no output, no work folder


# -- a budget too small for the build's vocabulary ---------------------------------------------------------
#: Distinct words of :func:`many_words`: at 400 MiB the merge's word tables (40 bytes a word of each partial,
#: 96 a merged word, twice the partials' 8 UTF-8 bytes a word: 152 x 900,000 = 130 MiB) do not fit beside the
#: baseline (300 MiB) and the smallest output block (16 MiB).
MANY_WORDS = 900_000


@pytest.fixture(scope="module")
def many_words(tmp_path_factory):
    """A token file of :data:`MANY_WORDS` distinct words, ten a line."""
    path = tmp_path_factory.mktemp("vocab") / "words.txt"
    words = [f"w{i:07d}" for i in range(MANY_WORDS)]
    path.write_text("\n".join(" ".join(words[i:i + 10]) for i in range(0, MANY_WORDS, 10)) + "\n",
                    encoding="utf-8")
    return path


def _least(text: str) -> int:
    return int(re.search(r"give at least (\d+)M", text).group(1))


@pytest.mark.cli_subprocess
def test_memory_too_small_for_the_vocabulary(tmp_path, cli_error, run_cli, many_words):
    # before: the merge held a dictionary of every word (about 240 bytes a word) whatever the budget
    tables = MANY_WORDS * (40 + 96 + 2 * 8)
    need = -(-((300 << 20) + tables + (16 << 20)) // (1 << 20))
    result = cli_error(["index", "build", many_words, "-o", tmp_path / "out.tlx", "--memory", "400M"],
                       "--memory 400 MiB cannot hold the merge of this build's vocabulary", progress=True)
    assert _least(result.err) == need and f"needs at least {need} MiB" in result.err
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no output, no work folder
    ok = run_cli(["index", "build", many_words, "-o", tmp_path / "out.tlx", "--memory", f"{need}M"])
    assert ok.code == 0, ok.err  # the budget the message names is enough
    from tealeaves.index import ReferenceIndex

    assert ReferenceIndex.load(tmp_path / "out.tlx").n_words == MANY_WORDS


def test_memory_too_small_for_the_vocabulary_api(tmp_path, monkeypatch):
    from tealeaves.index import memory
    from tealeaves.index.streaming import build_streaming

    words = [f"w{i:05d}" for i in range(40_000)]  # 5.6 MiB of word tables, beside a baseline of 380 MiB
    (tmp_path / "in").mkdir()
    lines = (" ".join(words[i:i + 10]) for i in range(0, 40_000, 10))
    path = _write(tmp_path / "in" / "words.txt", "\n".join(lines))
    monkeypatch.setattr(memory, "BASELINE_BYTES", 380 << 20)
    with pytest.raises(ParameterError, match="memory 400 MiB cannot hold the merge") as info:
        build_streaming([path], tmp_path / "out.tlx", memory=400 << 20)
    assert _least(str(info.value.fix)) == -(-((396 << 20) + 40_000 * (40 + 96 + 2 * 6)) // (1 << 20))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in"]


# -- --name, -o ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["index build", "index build-aligned"])
@pytest.mark.parametrize("name", ["", " ", "a\nb", "a\rb", "a\u2028b", "a\x00b"])
def test_bad_reference_name(tmp_path, cli_error, command, name):
    # before: '' silently became the default name; 'a\nb' split the signature over two lines ('a|b', once
    # refused here, is accepted now that signatures escape '|': tests/bad_inputs/test_signature.py)
    src = (_tuples(tmp_path) if "aligned" in command
           else _write(tmp_path / "d.jsonl", '{"id": 1, "text": "cat"}\n'))
    cli_error([*command.split(), src, "-o", tmp_path / "out", "--name", name],
              "--name must be a non-empty name", code=2)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", ["index build", "index build-aligned", "build-aligned-reference",
                                     "pltm fit"])
@pytest.mark.parametrize("out", ["", "  "])
def test_empty_output_path(tmp_path, cli_error, monkeypatch, command, out):
    # before: `index build -o ''` exit 70 (PosixPath('.') has an empty name); `pltm fit -o ''` wrote the
    # model files into the current folder
    monkeypatch.chdir(tmp_path)
    inp = _tuples(tmp_path)
    cli_error([*command.split(), inp, "-o", out], "-o must be a path", code=2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.jsonl"]


# -- a key given twice in one JSON object --------------------------------------------------------------------
@pytest.mark.parametrize("command, line", [
    ("index build", '{"id": 1, "text": "cat dog", "text": "mat"}'),  # before: indexed 'mat' only
    ("index build-aligned --links", '{"en": "Anarchism", "en": "Autism", "sv": "Anarkism"}'),
])
def test_repeated_key_in_a_corpus_or_links_record(tmp_path, cli_error, command, line):
    src = _write(tmp_path / "r.jsonl", line + "\n")
    dump = _write(tmp_path / "d.xml", "<mediawiki/>")
    extra = ["--dump", f"en={dump}", "--dump", f"sv={dump}"] if "links" in command else []
    cli_error([*command.split(), src, *extra, "-o", tmp_path / "out"], "occurs twice in one object")


# -- work folders of killed builds -------------------------------------------------------------------------
def _workdirs(folder):
    return sorted(p for p in folder.iterdir() if p.name.startswith(".tealeaves-build-"))


def _wait_for_owned_workdir(folder, proc, seconds=120):
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        owned = [w for w in _workdirs(folder) if (w / "owner.lock").exists()
                 and (w / "owner.lock").read_text().strip()]
        if owned:
            return owned[0]
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    raise AssertionError("the build made no work folder")


def test_a_live_builds_work_folder_is_never_removed_and_a_killed_ones_is(tmp_path):
    import os
    import signal
    import subprocess
    import sys

    from tealeaves.index.workdir import remove_stale_workdirs

    code = ("import sys, time; from tealeaves.index.workdir import Workdir\n"
            "with Workdir(sys.argv[1]):\n    time.sleep(300)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen([sys.executable, "-c", code, str(tmp_path / "out.tlx")], env=env)
    try:
        folder = _wait_for_owned_workdir(tmp_path, child)
        assert remove_stale_workdirs(tmp_path) == [] and folder.is_dir()  # its build is alive: kept
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
        assert folder.is_dir()  # kill -9: no cleanup ran
        assert remove_stale_workdirs(tmp_path) == [folder.name] and not folder.exists()
    finally:
        child.kill()
        child.wait()


def test_kill_9_of_a_sharded_build_leaves_a_folder_the_next_build_removes(tmp_path, run_cli):
    # before: kill -9 of `index build --workers 2` left .tealeaves-build-* behind, never cleaned
    import os
    import signal
    import subprocess
    import sys
    import time

    pytest.importorskip("distributed")
    from tealeaves.index import ReferenceIndex

    shards = []
    for s in range(2):
        p = tmp_path / f"s{s}.txt"
        p.write_text("".join(f"cat dog {s} mat {d % 7} sun\n" for d in range(20_000)), encoding="utf-8")
        shards.append(str(p))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    build = subprocess.Popen([sys.executable, "-m", "tealeaves", "index", "build", *shards, "-j", "2",
                              "-o", str(tmp_path / "big.tlx")], env=env, start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        folder = _wait_for_owned_workdir(tmp_path, build)
        deadline = time.monotonic() + 90
        while len(list(folder.rglob("*"))) < 2 and time.monotonic() < deadline:  # shard work under way
            assert build.poll() is None
            time.sleep(0.05)
        os.kill(build.pid, signal.SIGKILL)  # the build itself, as `kill -9 PID`
        build.wait(timeout=30)
    finally:
        try:
            os.killpg(build.pid, signal.SIGKILL)  # then its orphaned Dask workers
        except ProcessLookupError:
            pass
    assert folder.is_dir() and not (tmp_path / "big.tlx").exists()
    small = tmp_path / "small.txt"
    small.write_text("the cat sat\nthe dog ran\n", encoding="utf-8")
    assert run_cli(["index", "build", small, "-o", tmp_path / "small.tlx"]).code == 0
    assert _workdirs(tmp_path) == []  # the killed build's folder is gone, and the new build's own
    assert ReferenceIndex.load(tmp_path / "small.tlx").n_documents == 2
    # the killed build rerun: nothing lost, nothing duplicated (every line once, as counted in the files)
    assert run_cli(["index", "build", *shards, "-j", "2", "-o", tmp_path / "big.tlx"]).code == 0
    big = ReferenceIndex.load(tmp_path / "big.tlx")
    assert big.n_documents == 40_000 and _workdirs(tmp_path) == []
    for word in ("cat", "dog", "mat", "sun"):  # in every line of both files
        assert big.document_frequency(big.word_id(word)) == 40_000, word
