"""The data behind the unsegmented-text limit (``docs/errors.md#unsegmented-text``).

Prints, for real texts under the default tokenisation (letters and the combining marks attached to
them) and, in brackets, under the letters-only one it replaced, the share of letters in tokens of
more than ``LONG_TOKEN`` characters (a wide character counting 2;
:func:`tealeaves.corpus.preprocess.letter_counts`) against ``UNSEGMENTED_SHARE``: the spaced texts of
``$TEALEAVES_DATA`` (FLORES-200, NTREX-128, TICO-19, UDHR, the Bibles), their Chinese texts without
segmentation, and with ``--locales`` the system's translated software messages
(``/usr/share/locale/<lang>/LC_MESSAGES/*.mo``, messages of 40 characters or more; the language's
translators wrote them, so they are real text, and compound-heavy), with the Khmer ones also without
their zero-width spaces (U+200B, the invisible word separator much Khmer text omits).

    TEALEAVES_DATA=/path/to/data python benchmarks/segmentation_shares.py [--locales]
"""

from __future__ import annotations

import argparse
import gettext
import glob
import json
from pathlib import Path

from tealeaves.corpus.preprocess import (
    LETTERS_ONLY_PATTERN,
    LETTERS_PATTERN,
    LONG_TOKEN,
    UNSEGMENTED_SHARE,
    Preprocessor,
)
from tealeaves.data import locate

#: Files of ``$TEALEAVES_DATA`` (JSON Lines with a "text" field, or one text per line) by what they hold.
DATA = {
    "flores200": ("parallel/flores200/docs", "*.jsonl"), "udhr": ("parallel/udhr", "*.articles.jsonl"),
    "tico19": ("parallel/tico19/docs", "*.jsonl"),
    "ntrex128": ("parallel/ntrex128", "newstest2019-ref.*.txt"),
    "ebible": ("bible/ebible", "???-*.txt"), "ebible-extra": ("bible/ebible-extra", "*.txt"),
}
#: Message catalogues written without spaces between words.
UNSPACED_LOCALES = ("ja", "zh_CN", "zh_TW", "zh_HK", "th")
#: Scripts with combining marks whose text separates something other than words: Khmer words by
#: zero-width spaces, Burmese phrases by spaces, Tibetan/Dzongkha syllables by the tsheg (U+0F0B), Lao.
OTHER_LOCALES = ("lo", "km", "my", "bo", "dz")


def share(texts: list[str], pattern: str = LETTERS_PATTERN) -> float:
    """Percentage of the tokens' letters in tokens of more than LONG_TOKEN characters."""
    letters, long_letters = Preprocessor(token_pattern=pattern, stop_words=None).scan(texts).letter_counts()
    return 100 * long_letters / max(letters, 1)


def shares(texts: list[str]) -> tuple[float, float]:
    """:func:`share` under the default pattern and under the letters-only one."""
    return share(texts), share(texts, LETTERS_ONLY_PATTERN)


def is_chinese(name: str) -> bool:
    """Whether a data file holds Chinese (zho_Hans.jsonl, cmn-cu89s.txt, zh.jsonl, ...ref.zho-CN.txt)."""
    return name.lower().startswith(("zho", "cmn", "zh.")) or ".zho-" in name.lower()


def read(path: Path) -> list[str]:
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    return [json.loads(ln)["text"] for ln in lines] if path.suffix == ".jsonl" else lines


def messages(lang: str) -> list[str]:
    out = []
    for f in glob.glob(f"/usr/share/locale/{lang}/LC_MESSAGES/*.mo"):
        try:
            with open(f, "rb") as fh:
                catalog = gettext.GNUTranslations(fh)._catalog
        except (OSError, ValueError, IndexError, UnicodeDecodeError):  # a few catalogues gettext cannot parse
            continue
        out += [v for k, v in catalog.items() if k and isinstance(v, str) and len(v) >= 40]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--locales", action="store_true", help="also the system's translated messages")
    args = ap.parse_args()
    print(f"share of letters in tokens of more than {LONG_TOKEN} characters (limit "
          f"{100 * UNSEGMENTED_SHARE:.0f}%)")
    rows = []
    for name, (folder, pattern) in DATA.items():
        for path in sorted(locate(folder).glob(pattern)):
            if path.name != "vref.txt":
                kind = "unsegmented" if is_chinese(path.name) else "spaced"
                rows.append((kind, f"{name}/{path.name}", *shares(read(path))))
    if args.locales:
        for folder in sorted(glob.glob("/usr/share/locale/*/LC_MESSAGES")):
            lang = Path(folder).parent.name
            texts = messages(lang)
            if len(texts) >= 50:
                kind = ("unsegmented" if lang in UNSPACED_LOCALES else "other"
                        if lang in OTHER_LOCALES else "spaced")
                rows.append((kind, f"messages/{lang}", *shares(texts)))
            if lang == "km" and texts:
                bare = [t.replace("\u200b", "") for t in texts]
                rows.append(("unsegmented", "messages/km without U+200B", *shares(bare)))
    for kind in ("spaced", "unsegmented", "other"):
        got = [r for r in rows if r[0] == kind]
        if not got:
            continue
        for _, what, value, old in sorted(got, key=lambda r: r[2]):
            print(f"  {kind:14} {what:45} {value:5.1f}% ({old:4.1f}%)")
        worst = max(got, key=lambda r: r[2]) if kind == "spaced" else min(got, key=lambda r: r[2])
        print(f"{kind}: {len(got)} texts, {'highest' if kind == 'spaced' else 'lowest'} "
              f"{worst[2]:.1f}% ({worst[1]})")


if __name__ == "__main__":
    main()
