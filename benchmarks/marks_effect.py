"""Which texts of ``$TEALEAVES_DATA`` tokenise differently now that combining marks are kept.

Tokenises every text file of the data folder (``.txt``, ``.tsv``, ``.jsonl`` string values, ``.sgm``,
``.xml``, ``.tmx``, ``.csv``, FLORES ``.devtest``, dictionaries; UTF-8, the Reuters SGML as latin-1),
line by line, under the default letters-and-marks pattern
(:data:`tealeaves.corpus.preprocess.LETTERS_PATTERN`) and under the
letters-only pattern it replaced (``LETTERS_ONLY_PATTERN``), lowercased and without a stop list, and
prints every file whose token stream changes: its combining marks (after lowercasing), the tokens under
each rule, the lines whose tokens differ and the tokens of the new stream not in the old one (line by
line, as multisets).  A file without a combining mark after lowercasing
tokenises identically under both (the patterns then match the same runs), which the script checks too.

    TEALEAVES_DATA=/path/to/data python benchmarks/marks_effect.py
"""

from __future__ import annotations

import json
import re
from collections import Counter

from tealeaves.corpus._marks import MARKS
from tealeaves.corpus.preprocess import LETTERS_ONLY_PATTERN, LETTERS_PATTERN, Preprocessor
from tealeaves.data import locate

SUFFIXES = {".txt", ".tsv", ".jsonl", ".sgm", ".xml", ".tmx", ".csv", ".all", ".json", ".devtest"}


def lines_of(path) -> list[str]:
    """The texts of a file: its lines, or a JSON Lines record's string values."""
    raw = path.read_bytes()
    text = raw.decode("latin-1" if path.suffix == ".sgm" else "utf-8")
    lines = text.splitlines()
    if path.suffix == ".jsonl":
        return [v for ln in lines if ln.strip() for v in json.loads(ln).values() if isinstance(v, str)]
    return lines


def is_text(path) -> bool:
    return path.is_file() and path.suffix in SUFFIXES


def main() -> None:
    root = locate(".")
    new = Preprocessor(token_pattern=LETTERS_PATTERN, stop_words=None)
    old = Preprocessor(token_pattern=LETTERS_ONLY_PATTERN, stop_words=None)
    marks = re.compile(f"[{MARKS}]")
    n_files = n_tokens = 0
    print(f"{'file':60} {'marks':>6} {'old tokens':>10} {'new tokens':>10} {'lines':>6} {'new':>6}")
    for path in sorted(p for p in root.rglob("*") if is_text(p)):
        texts = lines_of(path)
        a, b = old.scan(texts).tokens(), new.scan(texts).tokens()
        n_files += 1
        n_tokens += sum(map(len, b))
        n_marks = sum(len(marks.findall(t.lower())) for t in texts)
        changed = sum(x != y for x, y in zip(a, b))
        assert changed == 0 or n_marks > 0, path  # no mark, no change
        if changed:
            new_tokens = sum(sum((Counter(y) - Counter(x)).values()) for x, y in zip(a, b) if x != y)
            print(f"{str(path.relative_to(root)):60} {n_marks:6} {sum(map(len, a)):10} {sum(map(len, b)):10} "
                  f"{changed:6} {new_tokens:6}")
            for x, y in [(x, y) for x, y in zip(a, b) if x != y][:3]:
                print(f"    old {sorted(set(x) - set(y))[:6]} -> new {sorted(set(y) - set(x))[:6]}")
    print(f"{n_files} files, {n_tokens} tokens under the new rule")


if __name__ == "__main__":
    main()
