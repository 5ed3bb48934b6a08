#!/usr/bin/env python3
"""Write src/tealeaves/data/registry.json from the source list below and a data folder.

Usage (maintainers): ``python scripts/build_data_registry.py /path/to/data``.

The source list (names, licences, canonical URLs, how each local file maps onto what its
publisher serves) is written by hand here; the size and SHA-256 of every file are computed
from the data folder given (the project's reference copy).  The checksums are those of the
*files*, not of any archive: an archive's own digest is unknown until it is downloaded, so
``tealeaves data fetch`` verifies each extracted member instead (docs/data.md).

A rule maps local paths (fnmatch patterns, relative to the data set's folder, first match
wins) onto a source: ``{"url": TEMPLATE}`` (a single file), ``{"archive": ID, "member":
TEMPLATE}`` (a member of one of the data set's archives) or ``{"derived": WHY}`` (prepared for
tealeaves from the source; not published in this form, so only a mirror can serve it).
Templates use ``{path}`` (the local relative path) and ``{name}`` (its last component).
"""

from __future__ import annotations

import fnmatch
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
from tealeaves.data.fetch import sha256_of  # noqa: E402 - the one SHA-256 of a file

GH = "https://raw.githubusercontent.com"

SPEC: list[dict] = [
    {
        "name": "reuters21578", "folder": "reuters21578",
        "title": "Reuters-21578, Distribution 1.0 (22 SGML files, README, DTD, category lists), "
                 "from the UCI KDD archive",
        "licence": "free distribution for research purposes only (README.txt, 'Copyright & Notification')",
        "homepage": "https://kdd.ics.uci.edu/databases/reuters21578/reuters21578.html",
        "archives": {"tar": {"url": "https://kdd.ics.uci.edu/databases/reuters21578/reuters21578.tar.gz",
                             "format": "tar.gz"}},
        "rules": [("*", {"archive": "tar", "member": "{path}"})],
    },
    {
        "name": "ebible", "folder": "bible/ebible",
        "title": "eBible verse-per-line texts (en, ro, sv, tr, zh) aligned to vref.txt (BibleNLP/ebible)",
        "licence": "per text (licences.tsv): engwebp, ronlsb public domain; cmnfeb CC BY-SA 4.0; "
                   "swe CC BY-NC-ND 4.0; turytc CC BY-ND 4.0",
        "homepage": "https://github.com/BibleNLP/ebible",
        "rules": [("vref.txt", {"url": "{gh}/BibleNLP/ebible/HEAD/metadata/vref.txt"}),
                  ("licences.tsv", {"url": "{gh}/BibleNLP/ebible/"
                    "8fd9a98042b9b5b918c0814bea6a05590e4aceb5/metadata/licences.tsv"}),
                  ("licenses/*", {"url": "{gh}/BibleNLP/ebible/HEAD/metadata/licences/{name}"}),
                  ("*.txt", {"url": "{gh}/BibleNLP/ebible/HEAD/corpus/{name}"}),
                  ("*", {"url": "{gh}/BibleNLP/ebible/HEAD/{name}"})],
    },
    {
        "name": "ebible-extra", "folder": "bible/ebible-extra",
        "title": "more eBible texts (am NT, zh CUV simplified, tr NT, sv Folkbibeln), "
                 "from davidbaines/ebible_data",
        "licence": "per text (ebible_status_subset.csv): amh, swef copyrighted, redistributable "
                   "per eBible.org; turobt CC BY-SA 4.0",
        "homepage": "https://github.com/davidbaines/ebible_data",
        "rules": [("amh.txt", {"url": "{gh}/davidbaines/ebible_data/HEAD/corpus/amh-amh.txt"}),
                  ("swef.txt", {"url": "{gh}/davidbaines/ebible_data/HEAD/corpus/swe-swef.txt"}),
                  ("vref.txt", {"url": "{gh}/BibleNLP/ebible/HEAD/metadata/vref.txt"}),
                  ("ebible_status_subset.csv", {"derived": "the rows of metadata/ebible_status.csv "
                                                "for the texts kept here"}),
                  ("*.txt", {"url": "{gh}/davidbaines/ebible_data/HEAD/corpus/{name}"}),
                  ("README.md", {"url": "{gh}/davidbaines/ebible_data/"
                    "112680b51a8c773dcb9b206cd78b6706408d087f/README.md"})],
    },
    {
        "name": "tagalog-angbiblia1905", "folder": "bible/tagalog-angbiblia1905",
        "title": "Tagalog Ang Biblia 1905: per-book files and a file aligned to eBible's vref.txt",
        "licence": "public domain (tagangbiblia.conf); conversion repository MIT",
        "homepage": "https://github.com/scrollmapper/bible_databases",
        "rules": [("LICENSE_scrollmapper_repo_MIT",
                   {"url": "{gh}/scrollmapper/bible_databases/HEAD/LICENSE"}),
                  ("*", {"derived": "converted from the SWORD module TagAngBiblia (CrossWire) as published "
                                    "by scrollmapper/bible_databases; the per-book and vref-aligned files "
                                    "are not published in this layout"})],
    },
    {
        "name": "christos-c", "folder": "bible/christos-c",
        "title": "Amharic New Testament, CES XML, massively parallel Bible corpus (Christodoulopoulos "
                 "and Steedman 2015)",
        "licence": "CC0 1.0 (LICENSE)",
        "homepage": "https://github.com/christos-c/bible-corpus",
        "rules": [("*.xml", {"url": "{gh}/christos-c/bible-corpus/"
          "0f35d074af28a0499cffe37e62b39922595f9db7/bibles/{name}"}),
                  ("README.md", {"url": "{gh}/christos-c/bible-corpus/"
                    "44e5fca1bfb369a5da2ee23ebc6f421c88489c5c/README.md"}),
                  ("*", {"url": "{gh}/christos-c/bible-corpus/HEAD/{name}"})],
    },
    {
        "name": "muse", "folder": "dictionaries/muse",
        "title": "MUSE bilingual dictionaries en-{ro,sv,tl,tr,zh} (full, 0-5000, 5000-6500)",
        "licence": "CC BY-NC 4.0 (MUSE)",
        "homepage": "https://github.com/facebookresearch/MUSE#ground-truth-bilingual-dictionaries",
        "rules": [("*", {"url": "https://dl.fbaipublicfiles.com/arrival/dictionaries/{name}"})],
    },
    {
        "name": "wiktionary", "folder": "dictionaries/wiktionary",
        "title": "Wiktionary-derived dictionaries {am,ro,sv,tl,tr,zh}-en (Izbicki, wiktionary_bli)",
        "licence": "CC BY-SA (Wiktionary)",
        "homepage": "https://github.com/mikeizbicki/wiktionary_bli",
        "rules": [("*.all", {"url": "{gh}/mikeizbicki/wiktionary_bli/"
          "c714d58acc741cc3feca7c429874a011259258d0/final/{name}"}),
                  ("*", {"url": "{gh}/mikeizbicki/wiktionary_bli/"
                    "c714d58acc741cc3feca7c429874a011259258d0/{name}"})],
    },
    {
        "name": "flores200", "folder": "parallel/flores200",
        "title": "FLORES-200 devtest in en, am, ro, sv, tl, tr, zh (Hans, Hant) with metadata, "
                 "and 481 aligned documents per language",
        "licence": "CC BY-SA 4.0 (LICENSE-CC-BY-SA)",
        "homepage": "https://github.com/facebookresearch/flores/tree/main/flores200",
        "archives": {"tar": {"url": "https://dl.fbaipublicfiles.com/nllb/flores200_dataset.tar.gz",
                             "format": "tar.gz"}},
        "rules": [("docs/*", {"derived": "devtest sentences grouped into documents by the URL column "
                                         "of metadata_devtest.tsv (one JSON line per document)"}),
                  ("*", {"archive": "tar", "member": "flores200_dataset/{path}"})],
    },
    {
        "name": "sib200", "folder": "parallel/sib200",
        "title": "SIB-200 topic labels for 1,004 FLORES sentences per language",
        "licence": "CC BY-SA 4.0 (text, from FLORES-200); annotations and code Apache-2.0 (LICENSE)",
        "homepage": "https://github.com/dadelani/sib-200",
        "rules": [("annotated/*/labels.txt", {"derived": "the seven category names, one a line"}),
                  ("annotated/*", {"url": "{gh}/dadelani/sib-200/"
                    "e7a172159963fd28c65f1ea53a0cea931bd08719/data/{path}"}),
                  ("*", {"url": "{gh}/dadelani/sib-200/HEAD/{name}"})],
    },
    {
        "name": "ntrex128", "folder": "parallel/ntrex128",
        "title": "NTREX-128 news test references (en, am, fil, ro, sv, tr, zh) with document ids",
        "licence": "CC BY-SA 4.0 (LICENSE.md)",
        "homepage": "https://github.com/MicrosoftTranslator/NTREX",
        "rules": [("newstest2019-*", {"url": "{gh}/MicrosoftTranslator/NTREX/"
          "c9f006f2c132c932b83ccd7aaa6a35930dd9c370/NTREX-128/{name}"}),
                  ("*", {"url": "{gh}/MicrosoftTranslator/NTREX/HEAD/{name}"})],
    },
    {
        "name": "tico19", "folder": "parallel/tico19",
        "title": "TICO-19 en/am/tl/zh: translation memories, a multiway TSV and per-language documents",
        "licence": "CC0 1.0 (LICENSE.md)",
        "homepage": "https://tico-19.github.io/",
        "rules": [("*", {"derived": "prepared from the TICO-19 translation memories and test set "
                                    "(https://tico-19.github.io/); the download location of each file "
                                    "was not confirmed, so only a mirror serves it"})],
    },
    {
        "name": "udhr", "folder": "parallel/udhr",
        "title": "Universal Declaration of Human Rights in seven languages, 31 aligned documents",
        "licence": "public domain (udhr2.xml)",
        "homepage": "https://github.com/nltk/nltk_data (packages/corpora/udhr2)",
        "archives": {"zip": {"url": "{gh}/nltk/nltk_data/gh-pages/packages/corpora/udhr2.zip",
                             "format": "zip"}},
        "rules": [("raw/*", {"archive": "zip", "member": "udhr2/{name}"}),
                  ("udhr2.xml", {"url": "{gh}/nltk/nltk_data/gh-pages/packages/corpora/udhr2.xml"}),
                  ("*.articles.jsonl", {"derived": "raw/<lang>.txt split into the preamble and the "
                                                   "30 articles (one JSON line per document)"})],
    },
    {
        "name": "amharic-english", "folder": "parallel/amharic-english",
        "title": "Amharic-English sentence pairs (news, history, legal)",
        "licence": "MIT (LICENSE.md); README: free for academic or research use, ask for commercial use",
        "homepage": "https://github.com/MarsPanther/Amharic-English-Machine-Translation-Corpus",
        "rules": [("README.md", {"url": "{gh}/MarsPanther/Amharic-English-Machine-Translation-Corpus/"
          "e3b9661ad60779be744271d0552675416a556640/README.md"}),
                  ("LICENSE.md", {"url": "{gh}/MarsPanther/Amharic-English-Machine-Translation-Corpus/"
                    "442a49446c84639ac2c76a50e95ff2383eb277f0/LICENSE.md"}),
                  ("*", {"url": "{gh}/MarsPanther/Amharic-English-Machine-Translation-Corpus/"
                    "b2b42c56bc5dd3bf362bc207058cb26deb629827/{path}"})],
    },
    {
        "name": "spelleng", "folder": "word-era/spelleng",
        "title": "SpellEng first OED attestation band of 31,695 English lemmata (Carr and Rastle 2024)",
        "licence": "CC BY 4.0 (license.md)",
        "homepage": "https://github.com/jwcarr/spelleng",
        "rules": [("REPO_README.md", {"url": "{gh}/jwcarr/spelleng/HEAD/README.md"}),
                  ("readme.md", {"url": "{gh}/jwcarr/spelleng/"
                    "937dfc6c435568233c8521c259f10b8812a3ed8e/spelleng/readme.md"}),
                  ("*", {"derived": "computed from SpellEng v1 (spelleng/spelleng_v1.zip): the earliest "
                                    "band with an OED quotation per lemma, and corpus frequencies"})],
    },
    {
        "name": "bram2011", "folder": "word-era/bram2011_oed_noun_verb_dates",
        "title": "OED first-attestation years of 1,912 noun/verb words",
        "licence": "MIT (repository licence)",
        "homepage": "https://github.com/SPOClab-ca/word-class-flexibility",
        "rules": [("REPO_README.md", {"url": "{gh}/SPOClab-ca/word-class-flexibility/HEAD/README.md"}),
                  ("LICENSE_repo_MIT", {"url": "{gh}/SPOClab-ca/word-class-flexibility/HEAD/LICENSE"}),
                  ("*", {"derived": "word lists of the repository's data (not committed upstream) and a "
                                    "table of first years built from them"})],
    },
]


def _source(rules: list, rel: str) -> dict:
    name = rel.rsplit("/", 1)[-1]
    for pattern, source in rules:
        if fnmatch.fnmatchcase(rel, pattern):
            return {k: (v.format(path=rel, name=name, gh=GH) if k in ("url", "member") else v)
                    for k, v in source.items()}
    raise SystemExit(f"no rule for {rel}")


def build(root: Path) -> dict:
    """Return the registry for the data sets in ``SPEC`` as found under ``root``."""
    datasets = []
    for spec in SPEC:
        folder = root / spec["folder"]
        files = []
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            rel = path.relative_to(folder).as_posix()
            files.append({"path": rel, "size": path.stat().st_size, "sha256": sha256_of(path),
                          **_source(spec["rules"], rel)})
        entry = {k: v for k, v in spec.items() if k not in ("rules", "archives")}
        archives = spec.get("archives", {})
        entry["archives"] = {k: {**a, "url": a["url"].format(gh=GH)} for k, a in archives.items()}
        entry["files"] = files
        datasets.append(entry)
    return {"format": 1, "datasets": datasets}


def dumps(registry: dict) -> str:
    """The registry as JSON text: indented, with each entry of a data set's ``files`` on one line.

    Parameters
    ----------
    registry : dict
        What :func:`build` returns.

    Returns
    -------
    str
        The text of ``registry.json`` (one line per file keeps it short: no file in ``src`` is
        over 800 lines).
    """
    entries = [f for d in registry["datasets"] for f in d["files"]]
    marked = {**registry, "datasets": []}
    for d in registry["datasets"]:
        first = sum(len(e["files"]) for e in marked["datasets"])
        marked["datasets"].append({**d, "files": [f"@@{first + i}@@" for i in range(len(d["files"]))]})
    text = json.dumps(marked, indent=1, ensure_ascii=False)
    for i, entry in enumerate(entries):
        text = text.replace(f'"@@{i}@@"', json.dumps(entry, ensure_ascii=False), 1)
    assert json.loads(text) == registry
    return text + "\n"


if __name__ == "__main__":
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data")
    out = Path(__file__).resolve().parent.parent / "src" / "tealeaves" / "data" / "registry.json"
    out.write_text(dumps(build(root)), encoding="utf-8")
    print(f"wrote {out}")
