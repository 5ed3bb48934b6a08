"""Line-aligned files read one line at a time (``_io.iter_lines``, ``corpus.parallel.iter_line_aligned``,
used by ``index build-aligned --lang ... --doc-ids``) give exactly what whole-file reading gives."""

from __future__ import annotations

import codecs

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tealeaves import _io
from tealeaves.corpus.parallel import ParallelFormatError, iter_line_aligned, read_line_aligned

PIECES = st.lists(st.sampled_from(["a", "b c", "\n", "\r\n", "\r", "\x0c", "\u2028", "é", " ", "\t",
                                   "\ufeff"]), max_size=40)


@settings(max_examples=200, deadline=None)
@given(PIECES, st.booleans())
def test_iter_lines_equals_read_lines(tmp_path_factory, pieces, bom):
    """Property: any mix of line ends, form feeds, U+2028 and byte-order marks (at the start and inside)."""
    path = tmp_path_factory.mktemp("l") / "x.txt"
    path.write_bytes((codecs.BOM_UTF8 if bom else b"") + "".join(pieces).encode("utf-8"))
    assert list(_io.iter_lines(path)) == _io.read_lines(path)


def test_iter_lines_utf16_and_bad_bytes(tmp_path):
    p = tmp_path / "u16.txt"
    p.write_text("a\nb\r\nc", encoding="utf-16")
    assert list(_io.iter_lines(p, "utf-16")) == _io.read_lines(p, "utf-16") == ["a", "b", "c"]
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\nfine\ncaf\xe9\n")
    with pytest.raises(_io.InputEncodingError, match="at line 3"):
        list(_io.iter_lines(bad))


def brute(files: dict[str, list[str]], ids: list[str]) -> tuple[list[str], dict[str, list]]:
    """An independent grouping: consecutive equal ids form a document, blank lines are missing."""
    order = [d for i, d in enumerate(ids) if i == 0 or ids[i - 1] != d]
    return order, {lang: [" ".join(x.strip() for x, d2 in zip(lines, ids) if d2 == d and x.strip()) or None
                          for d in order] for lang, lines in files.items()}


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3), st.sampled_from(["x y", "", "  ", "z"]),
                          st.sampled_from(["", "w"])), min_size=1, max_size=15))
def test_line_aligned_equals_brute_force(tmp_path_factory, docs):
    tmp = tmp_path_factory.mktemp("a")
    ids, en, sv = [], [], []
    for k, (n, a, b) in enumerate(docs):
        ids += [f"d{k}"] * n
        en += [a] * n
        sv += [b] * n
    (tmp / "ids.txt").write_text("\n".join(f"{i}\tmeta" for i in ids) + "\n", encoding="utf-8")
    (tmp / "en.txt").write_text("\r\n".join(en) + "\r\n", encoding="utf-8")
    (tmp / "sv.txt").write_text("\r".join(sv) + "\r", encoding="utf-8")  # old Mac line ends
    got = read_line_aligned({"en": tmp / "en.txt", "sv": tmp / "sv.txt"}, tmp / "ids.txt")
    order, texts = brute({"en": en, "sv": sv}, ids)
    assert got.ids == order and got.texts == texts


@pytest.mark.parametrize("en,ids,fragment", [
    ("a\nb\n", "1\n2\n3\n", "en.txt has 2 lines but there are 3 document ids"),
    ("a\nb\nc\nd\n", "1\n2\n", "en.txt has 4 lines but there are 2 document ids"),
    ("a\nb\nc\n", "1\n2\n1\n", "document id '1' recurs at line 3 after other documents"),
])
def test_line_aligned_errors(tmp_path, en, ids, fragment):
    (tmp_path / "en.txt").write_text(en, encoding="utf-8")
    (tmp_path / "ids.txt").write_text(ids, encoding="utf-8")
    with pytest.raises(ParallelFormatError, match=fragment):
        list(iter_line_aligned({"en": tmp_path / "en.txt"}, tmp_path / "ids.txt"))


def test_blank_id_lines_are_skipped(tmp_path):
    (tmp_path / "en.txt").write_text("a\nb\n", encoding="utf-8")
    (tmp_path / "ids.txt").write_text("1\n\n2\n", encoding="utf-8")
    assert list(iter_line_aligned({"en": tmp_path / "en.txt"}, tmp_path / "ids.txt")) == [
        ("1", {"en": "a"}), ("2", {"en": "b"})]
