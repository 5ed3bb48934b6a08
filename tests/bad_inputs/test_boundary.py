"""The CLI's error boundary: usage errors, missing files, --debug, closed pipes, interrupts."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tealeaves import cli


def test_unknown_command_is_a_usage_error(cli_error):
    cli_error(["no-such-command"], "invalid choice", code=2)


def test_bad_option_type_is_a_usage_error(cli_error, tmp_path):
    cli_error(["coherence", "--reference", str(tmp_path), "--topics", str(tmp_path), "--top", "x"],
              "--top", code=2)


def test_missing_model_file(cli_error, tmp_path):
    cli_error(["perplexity", str(tmp_path / "none.npz"), str(tmp_path / "none.txt")], "none.npz")


def test_internal_error_is_reported_as_a_bug(monkeypatch, run_cli):
    def boom(args):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(cli, "build_parser", lambda: _parser_running(boom))
    result = run_cli(["x"])
    assert result.code == cli.EXIT_INTERNAL
    assert "internal error: RuntimeError: kaboom" in result.err and "--debug" in result.err


def test_keyboard_interrupt(monkeypatch, run_cli):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", lambda: _parser_running(interrupted))
    result = run_cli(["x"])
    assert result.code == cli.EXIT_INTERRUPT and "interrupted" in result.err


def test_debug_shows_the_traceback(monkeypatch):
    def boom(args):
        raise RuntimeError("kaboom")

    monkeypatch.setattr(cli, "build_parser", lambda: _parser_running(boom))
    with pytest.raises(RuntimeError, match="kaboom"):
        cli.main(["x", "--debug"])


def test_closed_pipe_is_quiet(tmp_path):
    """`tealeaves ... | head -c 10`: the reader leaves while 4 MB are still being written; the command
    stops quietly with status 141 (no traceback, no 'Exception ignored' from Python at exit)."""
    script = tmp_path / "loud.py"
    script.write_text(
        "import sys\n"
        "from tealeaves import cli\n"
        "def loud(args):\n"
        "    for _ in range(4096):\n"
        "        print('x' * 1023)\n"
        "    return 0\n"
        "def parser():\n"
        "    p = cli.ArgumentParser(prog='tealeaves')\n"
        "    p.set_defaults(func=loud)\n"
        "    return p\n"
        "cli.build_parser = parser\n"
        "sys.exit(cli.main([]))\n")
    proc = subprocess.run(["bash", "-c", f"{sys.executable} {script} | head -c 10 >/dev/null; "
                           "echo ${PIPESTATUS[0]} >&2"], capture_output=True, text=True)
    assert proc.stderr.strip() == str(cli.EXIT_PIPE), proc.stderr


def _parser_running(func):
    parser = cli.ArgumentParser(prog="tealeaves")
    parser.add_argument("x")
    parser.set_defaults(func=func)
    return parser


def test_error_messages_are_escaped(monkeypatch, run_cli):
    """A file name or value with a newline or an ANSI escape cannot forge a line on the terminal."""
    from tealeaves.errors import TealeavesError

    def forged(args):
        raise TealeavesError("bad file 'x\nLINK eve http://evil\x1b[2J'")

    monkeypatch.setattr(cli, "build_parser", lambda: _parser_running(forged))
    result = run_cli(["x"])
    assert result.code == cli.EXIT_ERROR
    assert result.err.count("\n") == 1 and "\x1b" not in result.err and "\\nLINK eve" in result.err


def test_warnings_are_printed_as_tealeaves_warnings(monkeypatch, run_cli):
    import warnings

    def warns(args):
        warnings.warn("3 topics list fewer than 10 words\x1b[2J", UserWarning, stacklevel=1)
        return 0

    monkeypatch.setattr(cli, "build_parser", lambda: _parser_running(warns))
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        result = run_cli(["x"])
    assert result.code == 0
    assert result.err == "tealeaves: warning: 3 topics list fewer than 10 words\\x1b[2J\n"


# -- library errors name parameters; the boundary names the running command's options (docs/naming.md) --
def _tealeaves(*argv, cwd):
    import os

    env = {**os.environ, "TEALEAVES_DEBUG": ""}
    return subprocess.run([sys.executable, "-m", "tealeaves", *map(str, argv)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def _one_error_line(proc) -> str:
    lines = proc.stderr.splitlines()
    assert proc.returncode == cli.EXIT_ERROR and len(lines) == 1, proc.stderr
    assert lines[0].startswith("tealeaves: error: ") and "Traceback" not in proc.stderr
    return lines[0]


def test_a_command_without_encoding_option_does_not_offer_it(tmp_path):
    """`evaluate --manifest` reads the manifest as UTF-8 and has no --encoding: the fix must not name one."""
    (tmp_path / "c.txt").write_text("a b c\nd e f\n", encoding="utf-8")
    (tmp_path / "m.json").write_bytes('{"lda": "caf\xe9.npz"}'.encode("latin-1"))
    line = _one_error_line(_tealeaves("evaluate", "c.txt", "--manifest", "m.json", "-o", "o.sqlite",
                                      cwd=tmp_path))
    assert "'m.json' is not valid utf-8: byte 0xe9 at line 1" in line
    assert line.endswith("(convert it to UTF-8)") and "encoding" not in line.split("(", 2)[-1]
    assert "--" not in line and "`" not in line


def test_a_file_that_is_utf8_by_its_format_does_not_offer_encoding(tmp_path):
    """`human score` has --encoding, for the judgments file; the study (JSON) is UTF-8 whatever it says."""
    (tmp_path / "r.csv").write_text("item_id,annotator,response\n", encoding="utf-8")
    (tmp_path / "s.json").write_bytes('{"name": "caf\xe9"}'.encode("latin-1"))
    line = _one_error_line(_tealeaves("human", "score", "r.csv", "--study", "s.json", cwd=tmp_path))
    assert "'s.json' is not valid utf-8: byte 0xe9" in line and line.endswith("(convert it to UTF-8)"), line


def test_a_command_with_encoding_option_names_it(tmp_path):
    (tmp_path / "c.txt").write_bytes("caf\xe9 au lait\n".encode("latin-1"))
    line = _one_error_line(_tealeaves("index", "build", "c.txt", "-o", "x.tlx", cwd=tmp_path))
    assert line.endswith("(give its encoding with --encoding (e.g. --encoding latin-1), or convert it to "
                         "UTF-8)"), line
    line = _one_error_line(_tealeaves("index", "build", "c.txt", "-o", "x.tlx", "--encoding", "no-such",
                                      cwd=tmp_path))
    assert "unknown encoding 'no-such' (give a Python codec name such as utf-8 or latin-1 as --encoding)" \
        in line


def test_a_parameter_the_command_has_under_another_option_is_named_by_it(tmp_path):
    """`index build-aligned`'s `--lang` gives `lang_files` and `--dump` gives `dumps` (documented
    exceptions): a library error naming those parameters names these options."""
    line = _one_error_line(_tealeaves("index", "build-aligned", "--lang", "en", "-o", "ref", cwd=tmp_path))
    assert "--lang 'en' is not CODE=FILE (e.g. --lang en=en.txt)" in line
    line = _one_error_line(_tealeaves("index", "build-aligned", "--dump", "en=a.xml", "-o", "ref",
                                      cwd=tmp_path))
    assert "--dump belongs to a linked-Wikipedia build (add --links or --langlinks)" in line
