"""Reuters-21578 (Distribution 1.0) and its ModApte split.

The reader parses the 22 original SGML files ``reut2-000.sgm`` ...
``reut2-021.sgm`` (latin-1) with regular expressions; no SGML library is
needed because every story is delimited by ``<REUTERS ...>`` / ``</REUTERS>``
lines and every field by a fixed pair of tags (README.txt §VI).

ModApte split (README.txt §VIII.B, Apté et al. 1994, as used by NLTK's
``reuters`` corpus and most text-categorisation work):

* candidates: ``TOPICS="YES"`` stories with ``LEWISSPLIT="TRAIN"`` (9,603) or
  ``LEWISSPLIT="TEST"`` (3,299);
* the *90 categories* are the TOPICS categories that label at least one
  candidate training story and at least one candidate test story;
* a story is kept when it carries at least one of those 90 categories, and
  its labels are its categories restricted to them.

A literal reading of these rules gives 7,770 training and 3,019 test stories.
The customary 7,769 (Yang and Liu 1999's "ApteMod", NLTK's ``reuters``
corpus) lacks exactly one training story: NEWID 1199 (OLDID 16519,
``reut2-001.sgm``), labelled ``trade``.  It is not a news story but a test
transmission: its REUTERS tag is the only ModApte candidate carrying the extra
``CSECS`` attribute, its DATE has a doubled space, its TITLE
("ROSTENKOWSKI SAYS HE WILL OPPOSE PROTECTIONIST TRADE BILL IN U.S. HOUSE")
is preceded by ``******`` and broken over two lines, and its only text is
``Blah blah blah.`` outside any BODY element.  Removing it also reproduces the
published per-category sizes (``trade``: 485 stories, not 486).  See
:data:`MODAPTE_EXCLUDED` and ``docs/corpus.md``.

Two stories list a category twice (NEWID 5467 ``corn``, NEWID 19918
``trade``); labels are de-duplicated, so ``corn`` has 181 training stories.

A story's text (:func:`story_text`) is its TITLE and BODY without the closing
"Reuter", as in the ApteMod files; UNPROC stories, which have neither element,
are empty.  This reproduces the article's training-set document frequencies
exactly (oil 730; 732 with the UNPROC text).  :data:`REUTERS_RECIPE` is the
preprocessing calibrated against the article's counts (``docs/corpus.md``).
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from tealeaves import _io, data
from tealeaves.corpus.corpus import Corpus
from tealeaves.corpus.preprocess import Preprocessor
from tealeaves.errors import EmptyInputError

#: The 22 SGML files of the distribution, relative to the data root.
SGML_FILES: tuple[str, ...] = tuple(f"reuters21578/reut2-{i:03d}.sgm" for i in range(22))

#: NEWIDs left out of the standard ModApte split: the test transmission NEWID 1199
#: ("Blah blah blah."), see the module docstring.
MODAPTE_EXCLUDED: frozenset[int] = frozenset({1199})

#: Bumped whenever parsing or the story text changes (part of cache keys).
READER_VERSION = 2

#: Standard sizes of the ModApte split.
MODAPTE_SIZES = {"train": 7769, "test": 3019, "categories": 90}

_STORY = re.compile(r"<REUTERS([^>]*)>(.*?)</REUTERS>", re.S)
_ATTR = re.compile(r'(\w+)="([^"]*)"')
_D = re.compile(r"<D>(.*?)</D>", re.S)
_ENTITY = re.compile(r"&#(\d+);")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_TAGS = re.compile(r"</?(?:TITLE|DATELINE|AUTHOR|BODY)>")


@dataclass(frozen=True)
class ReutersStory:
    """One Reuters-21578 story, with the REUTERS tag attributes and its fields.

    Parameters
    ----------
    newid : int
        The ``NEWID`` attribute.
    oldid : int
        The ``OLDID`` attribute.
    lewissplit : str
        The ``LEWISSPLIT`` attribute (``TRAIN``, ``TEST`` or ``NOT-USED``).
    cgisplit : str
        The ``CGISPLIT`` attribute.
    topics_attr : str
        The ``TOPICS`` attribute (``YES``, ``NO`` or ``BYPASS``).
    topics : tuple of str
        The TOPICS categories (in a split, only its categories).
    places, people, orgs, exchanges : tuple of str, default ()
        The other category fields.
    date : str, default ""
        The DATE field.
    text_type : str, default "NORM"
        The TEXT element's TYPE (``NORM``, ``BRIEF`` or ``UNPROC``).
    title : str, default ""
        The TITLE field.
    dateline : str, default ""
        The DATELINE field.
    author : str, default ""
        The AUTHOR field.
    body : str, default ""
        The BODY field.
    unprocessed : str, default ""
        The untagged text of an ``UNPROC`` story.
    file : str, default ""
        The SGML file's name (not compared).
    """

    newid: int
    oldid: int
    lewissplit: str
    cgisplit: str
    topics_attr: str
    topics: tuple[str, ...]
    places: tuple[str, ...] = ()
    people: tuple[str, ...] = ()
    orgs: tuple[str, ...] = ()
    exchanges: tuple[str, ...] = ()
    date: str = ""
    text_type: str = "NORM"
    title: str = ""
    dateline: str = ""
    author: str = ""
    body: str = ""
    unprocessed: str = ""
    file: str = field(default="", compare=False)

    @property
    def text(self) -> str:
        """Title and body without the closing "Reuter" sign-off (:func:`story_text` defaults)."""
        return story_text(self)


def clean(raw: str) -> str:
    """Decode SGML character references and replace control characters by spaces.

    ``&lt;`` and ``&amp;`` become ``<`` and ``&``; numeric references ``&#N;``
    are decoded first, and every control character (``&#2;``, ``&#3;``, the
    DEL ``&#127;`` the wire used between words, ...) except newline becomes a
    space, so no two words are ever glued together.

    Parameters
    ----------
    raw : str
        Text of an SGML field.

    Returns
    -------
    str
        The decoded text.
    """
    text = _ENTITY.sub(lambda m: chr(int(m.group(1))), raw)
    text = html.unescape(text)
    return _CONTROL.sub(" ", text)


def _field(tag: str, block: str) -> str | None:
    m = re.search(rf"<{tag}>(.*?)</{tag}>", block, re.S)
    return m.group(1) if m else None


def _categories(tag: str, block: str) -> tuple[str, ...]:
    inner = _field(tag, block) or ""
    return tuple(d.strip() for d in _D.findall(inner))


def _parse_story(attrs: str, block: str, file: str) -> ReutersStory:
    a = dict(_ATTR.findall(attrs))
    text_m = re.search(r"<TEXT([^>]*)>(.*?)</TEXT>", block, re.S)
    text_attrs, text = (text_m.group(1), text_m.group(2)) if text_m else ("", "")
    text_type = dict(_ATTR.findall(text_attrs)).get("TYPE", "NORM")
    body = _field("BODY", text)
    # UNPROC stories have no BODY element: their text is kept apart, in ``unprocessed``.
    unprocessed = _TAGS.sub(" ", _strip_fields(text)) if text_type == "UNPROC" else ""
    return ReutersStory(
        newid=int(a["NEWID"]),
        oldid=int(a["OLDID"]),
        lewissplit=a.get("LEWISSPLIT", ""),
        cgisplit=a.get("CGISPLIT", ""),
        topics_attr=a.get("TOPICS", ""),
        topics=_categories("TOPICS", block),
        places=_categories("PLACES", block),
        people=_categories("PEOPLE", block),
        orgs=_categories("ORGS", block),
        exchanges=_categories("EXCHANGES", block),
        date=clean(_field("DATE", block) or "").strip(),
        text_type=text_type,
        title=clean(_field("TITLE", text) or "").strip(),
        dateline=clean(_field("DATELINE", text) or "").strip(),
        author=clean(_field("AUTHOR", text) or "").strip(),
        body=clean(body or "").strip(),
        unprocessed=clean(unprocessed).strip(),
        file=file,
    )


def _strip_fields(text: str) -> str:
    """Remove the TITLE, DATELINE and AUTHOR elements (kept in their own fields)."""
    return re.sub(r"<(TITLE|DATELINE|AUTHOR)>.*?</\1>", " ", text, flags=re.S)


def parse_sgml(text: str, file: str = "") -> list[ReutersStory]:
    """Parse the stories of one SGML file's text (already decoded from latin-1).

    Parameters
    ----------
    text : str
        The file's text.
    file : str, default ""
        The file's name, recorded in each story.

    Returns
    -------
    list of ReutersStory
        The stories, in order.
    """
    return [_parse_story(m.group(1), m.group(2), file) for m in _STORY.finditer(text)]


def read_reuters(files: Sequence[str | Path] | None = None) -> list[ReutersStory]:
    """Read every story of Reuters-21578 (21,578 stories), in file order.

    Parameters
    ----------
    files : sequence of (str or Path) or None, default None
        The SGML files; None takes the 22 files found by :func:`tealeaves.data.locate`.

    Returns
    -------
    list of ReutersStory
        Every story.

    Raises
    ------
    TealeavesError
        For a missing file or a folder among ``files`` (:mod:`tealeaves._io`).
    EmptyInputError
        If no story is found.
    """
    paths = [data.locate(f) for f in SGML_FILES] if files is None else [Path(f) for f in files]
    stories: list[ReutersStory] = []
    for path in paths:
        text = _io.read_text(path, "latin-1", what="Reuters SGML file")  # latin-1 by definition
        stories.extend(parse_sgml(text, Path(path).name))
    if not stories:
        raise EmptyInputError(f"no <REUTERS> story found in {', '.join(map(str, paths))}")
    return stories


def modapte_categories(stories: Iterable[ReutersStory]) -> list[str]:
    """The TOPICS categories with at least one ModApte training and one test candidate story.

    Parameters
    ----------
    stories : iterable of ReutersStory
        The stories of the distribution.

    Returns
    -------
    list of str
        The categories (90 for the full distribution), sorted.
    """
    seen: dict[str, set[str]] = {"TRAIN": set(), "TEST": set()}
    for s in stories:
        if s.topics_attr == "YES" and s.lewissplit in seen:
            seen[s.lewissplit].update(s.topics)
    return sorted(seen["TRAIN"] & seen["TEST"])


def modapte_split(
    stories: Sequence[ReutersStory] | None = None,
    exclude: Iterable[int] = MODAPTE_EXCLUDED,
) -> tuple[list[ReutersStory], list[ReutersStory], list[str]]:
    """Return ``(train, test, categories)`` of the ModApte split (Apté et al. 1994).

    Each story keeps only its ModApte categories (the 90 of
    :func:`modapte_categories`) in ``topics``.  Labels are de-duplicated.

    Parameters
    ----------
    stories : sequence of ReutersStory or None, default None
        The stories (None: :func:`read_reuters`).
    exclude : iterable of int, default MODAPTE_EXCLUDED
        NEWIDs left out of the split; the default drops the test transmission
        NEWID 1199 so the sizes are the standard 7,769 / 3,019 (pass ``exclude=()``
        for the 7,770 of a literal reading of the README).

    Returns
    -------
    train : list of ReutersStory
        The training stories.
    test : list of ReutersStory
        The test stories.
    categories : list of str
        The ModApte categories.
    """
    stories = read_reuters() if stories is None else stories
    cats = modapte_categories(stories)
    keep = set(cats)
    skip = set(exclude)
    out: dict[str, list[ReutersStory]] = {"TRAIN": [], "TEST": []}
    for s in stories:
        if s.topics_attr != "YES" or s.lewissplit not in out or s.newid in skip:
            continue
        labels = tuple(dict.fromkeys(c for c in s.topics if c in keep))
        if labels:
            out[s.lewissplit].append(_relabel(s, labels))
    return out["TRAIN"], out["TEST"], cats


def _relabel(story: ReutersStory, labels: tuple[str, ...]) -> ReutersStory:
    return replace(story, topics=labels)


def story_id(story: ReutersStory) -> str:
    """NLTK-style document id: ``training/NEWID`` or ``test/NEWID``.

    Parameters
    ----------
    story : ReutersStory
        A story.

    Returns
    -------
    str
        Its id.
    """
    return f"{'training' if story.lewissplit == 'TRAIN' else 'test'}/{story.newid}"


def duplicate_stories(stories: Sequence[ReutersStory]) -> list[tuple[int, int]]:
    """Pairs ``(first NEWID, later NEWID)`` of stories whose title and body are identical.

    Parameters
    ----------
    stories : sequence of ReutersStory
        The stories.

    Returns
    -------
    list of tuple of (int, int)
        The duplicate pairs, in order.
    """
    first: dict[tuple[str, str], int] = {}
    pairs = []
    for s in stories:
        key = (s.title, s.body)
        if key in first:
            pairs.append((first[key], s.newid))
        else:
            first[key] = s.newid
    return pairs


def category_counts(stories: Iterable[ReutersStory]) -> Counter[str]:
    """How many stories carry each category.

    Parameters
    ----------
    stories : iterable of ReutersStory
        The stories.

    Returns
    -------
    collections.Counter
        Category to count.
    """
    return Counter(c for s in stories for c in s.topics)


# -- loading as corpora -------------------------------------------------------

#: Words of three or more letters.
LETTERS3_PATTERN = r"(?u)\b[^\W\d_]{3,}\b"

#: The default preprocessing recipe for Reuters, calibrated against the counts
#: the article publishes (``benchmarks/reuters_recipe_search.py``; see
#: ``docs/corpus.md``): words of 3+ letters, lowercased, scikit-learn's English
#: stop words removed, kept when in at least 5 and at most 20% of the training
#: stories.  Vocabulary 6,857 (article: 6,855); test/14826 has 348 words (342).
REUTERS_RECIPE: dict = {
    "token_pattern": LETTERS3_PATTERN,
    "lowercase": True,
    "stop_words": "english",
    "min_df": 5,
    "max_df": 0.2,
    "max_features": None,
}


def reuters_preprocessor() -> Preprocessor:
    """A fresh :class:`Preprocessor` with the default recipe :data:`REUTERS_RECIPE`.

    Returns
    -------
    Preprocessor
        An unfitted preprocessor.
    """
    return Preprocessor(**REUTERS_RECIPE)


_SIGNOFF = re.compile(r"(?:\s*\breuters?\S*)+\s*\Z", re.I)


def story_text(
    story: ReutersStory,
    include_title: bool = True,
    include_unprocessed: bool = False,
    keep_signoff: bool = False,
) -> str:
    """The text a story contributes to a corpus.

    By default the TITLE and the BODY, separated by a newline, with the
    closing "Reuter" sign-off removed: the text of the ApteMod files behind
    NLTK's ``reuters`` corpus.  ``UNPROC`` stories, which have neither
    element, then have no text.

    Parameters
    ----------
    story : ReutersStory
        The story.
    include_title : bool, default True
        Put the title before the body.
    include_unprocessed : bool, default False
        Use an ``UNPROC`` story's untagged text as the body.
    keep_signoff : bool, default False
        Keep the closing "Reuter".

    Returns
    -------
    str
        The story's text.
    """
    body = story.body or (story.unprocessed if include_unprocessed else "")
    if not keep_signoff:
        body = _SIGNOFF.sub("", body)
    return f"{story.title}\n{body}" if include_title and story.title else body


def load_reuters_modapte(
    preprocessor: Preprocessor | None = None,
    include_title: bool = True,
    include_unprocessed: bool = False,
) -> tuple[Corpus, Corpus, Preprocessor]:
    """Return ``(train, test, preprocessor)`` for the ModApte split of Reuters-21578.

    The preprocessor is fitted on the 7,769 training stories and applied to the
    3,019 test stories.  Document ids are ``training/NEWID`` and ``test/NEWID``;
    labels are tuples of the story's ModApte categories.

    Parameters
    ----------
    preprocessor : Preprocessor or None, default None
        The recipe (None: :func:`reuters_preprocessor`).
    include_title : bool, default True
        A story's text is :func:`story_text`: title and body.
    include_unprocessed : bool, default False
        The 47 training and 14 test UNPROC stories are empty unless this is set.

    Returns
    -------
    train : Corpus
        The training stories.
    test : Corpus
        The test stories.
    preprocessor : Preprocessor
        The fitted preprocessor.
    """
    train_s, test_s, _ = modapte_split()
    pre = reuters_preprocessor() if preprocessor is None else preprocessor

    def texts(stories: list[ReutersStory]) -> list[str]:
        return [story_text(s, include_title, include_unprocessed) for s in stories]

    train = pre.fit_transform(
        texts(train_s), ids=[story_id(s) for s in train_s], labels=[s.topics for s in train_s]
    )
    test = pre.transform(texts(test_s), ids=[story_id(s) for s in test_s], labels=[s.topics for s in test_s])
    for corpus in (train, test):
        corpus.metadata["source"] = "Reuters-21578 ModApte"
        corpus.metadata["include_title"] = include_title
        corpus.metadata["include_unprocessed"] = include_unprocessed
    return train, test, pre


def recipe_digest(recipe: dict | None = None) -> str:
    """A short hash of a recipe (default :data:`REUTERS_RECIPE`) and the split, for cache keys.

    Parameters
    ----------
    recipe : dict or None, default None
        A preprocessing recipe (None: :data:`REUTERS_RECIPE`).

    Returns
    -------
    str
        Ten hexadecimal digits of a SHA-1.
    """
    payload = {
        "recipe": REUTERS_RECIPE if recipe is None else recipe,
        "exclude": sorted(MODAPTE_EXCLUDED),
        "reader": READER_VERSION,
    }
    return hashlib.sha1(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:10]
