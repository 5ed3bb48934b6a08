"""The schema of a study file, checked on load (docs/human.md, "The study file").

Every violation raises :class:`StudyFormatError` naming the file, the item
(position and id), the field, what was found and what is expected.  Topic ids
may be whole numbers (``3``) or non-empty strings (``"news-3"``): both are
kept as given and compared as strings everywhere (scores, correlations);
booleans, floats such as ``3.5`` and empty strings are refused.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from tealeaves.errors import StudyFormatError
from tealeaves.human import items as it

FORMAT = "tealeaves-study"
FORMAT_VERSION = 1
RATING_TASKS = (it.RATING, it.MULTILINGUAL_RATING)


def found(value: object) -> str:
    """How a JSON value is shown in a message: its type and a short repr.

    Parameters
    ----------
    value : object
        A value parsed from the study file (any JSON type).

    Returns
    -------
    str
        ``"an object"`` or ``"a list"`` for containers, else the kind and the repr cut at 60
        characters (``"a string 'x'"``).
    """
    kind = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "null"}.get(type(value), type(value).__name__)
    text = repr(value)
    return kind if isinstance(value, (dict, list)) else f"{kind} {text[:60]}{'...' if len(text) > 60 else ''}"


class _Checker:
    """Collects the context (file, item) of the checks of one study file."""

    def __init__(self, source: str, external: bool = False):
        self.source = source
        self.external = external

    def fail(self, where: str, expected: str, value: object) -> None:
        raise StudyFormatError(f"study file {self.source}: {where} must be {expected}, found {found(value)}",
                               fix="rebuild it with `tealeaves human build-study` or fix it by hand "
                               "(schema: docs/human.md)")

    def text(self, where: str, value: object) -> str:
        if not isinstance(value, str) or not value.strip():
            self.fail(where, "a non-empty string", value)
        return value

    def words(self, where: str, value: object) -> None:
        if not isinstance(value, list) or not value:
            self.fail(where, "a non-empty list of words (strings)", value)
        for j, w in enumerate(value):
            self.text(f"{where}[{j}]", w)

    def topic_id(self, where: str, value: object) -> None:
        ok = (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, str) and value.strip() != "")
        if not ok:
            self.fail(where, "a topic id (a whole number or a non-empty string)", value)

    def top(self, raw: object) -> None:
        """The top-level object (format, version, name, seed, settings, annotators, items, excluded)."""
        if not isinstance(raw, dict) or raw.get("format") != FORMAT:
            raise StudyFormatError(f"{self.source} is not a tealeaves study file (no "
                                   f"\"format\": \"{FORMAT}\")",
                                   fix="build one with `tealeaves human build-study`")
        version = raw.get("format_version", FORMAT_VERSION)
        if version != FORMAT_VERSION or isinstance(version, bool):
            self.fail("format_version", f"{FORMAT_VERSION} (this tealeaves reads version {FORMAT_VERSION})",
                      version)
        if "name" in raw:
            self.text("name", raw["name"])
        seed = raw.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            self.fail("seed", "null or a whole number >= 0", seed)
        for key in ("settings",):
            if raw.get(key) is not None and not isinstance(raw[key], dict):
                self.fail(key, "an object", raw[key])
        if raw.get("excluded") is not None and not isinstance(raw["excluded"], list):
            self.fail("excluded", "a list", raw["excluded"])
        names = raw.get("annotators")
        if names is not None:
            if not isinstance(names, list):
                self.fail("annotators", "null or a list of annotator names", names)
            for j, name in enumerate(names):
                self.text(f"annotators[{j}]", name)
                if not name.isprintable():
                    self.fail(f"annotators[{j}]", "a name without control characters", name)
            dup = sorted({n for n in names if names.count(n) > 1})
            if dup:
                self.fail("annotators", "a list of distinct names", dup[0])
        if not isinstance(raw.get("items"), list):
            self.fail("items", "a list of items", raw.get("items"))

    def item(self, pos: int, item: object) -> None:
        """One item: id, task, options, and the fields its task needs (answers included)."""
        if not isinstance(item, dict):
            self.fail(f"items[{pos}]", "an object", item)
        where = f"items[{pos}]"
        self.text(f"{where}.id", item.get("id"))
        where = f"items[{pos}] ({item['id'][:40]!r})"
        if item.get("task") not in it.TASKS:
            self.fail(f"{where}.task", f"one of {', '.join(it.TASKS)}", item.get("task"))
        options = item.get("options")
        if not isinstance(options, list) or len(options) < 2:
            self.fail(f"{where}.options", "a list of at least two options (strings)", options)
        for j, o in enumerate(options):
            self.text(f"{where}.options[{j}]", o)
        if len(set(options)) != len(options):
            self.fail(f"{where}.options", "distinct options", options)
        check = item.get("check", False)
        if not isinstance(check, bool):
            self.fail(f"{where}.check", "true or false", check)
        if not check:
            key = "document" if item["task"] == it.TOPIC_INTRUSION else "topic"
            if key not in item:
                self.fail(f"{where}.{key}", f"the {key} this item is about", None)
            (self.text if key == "document" else self.topic_id)(f"{where}.{key}", item[key])
        self.task_fields(where, item, check)

    def task_fields(self, where: str, item: dict, check: bool) -> None:
        task, options = item["task"], item["options"]
        if task in RATING_TASKS:
            if not all(_is_number(o) for o in options):
                self.fail(f"{where}.options", f"a rating scale: numbers as strings, e.g. "
                          f"{list(it.RATING_SCALE)} or ['1', '2', '3']", options)
            if task == it.RATING and not (self.external and "words" not in item):
                self.words(f"{where}.words", item.get("words"))
            elif task == it.MULTILINGUAL_RATING:
                self.multilingual(where, item)
        elif not (self.external and item.get("answer") is None):  # intrusion: scoring needs the answer
            answer = item.get("answer")
            if answer not in options:
                self.fail(f"{where}.answer", "the intruder, one of the item's options (a study needs its "
                          "answers to be scored)", answer)
        if check:
            expected = item.get("expected")
            if not isinstance(expected, list) or not expected or any(e not in options for e in expected):
                self.fail(f"{where}.expected", "a non-empty list of the options a check item accepts",
                          expected)
        if task == it.TOPIC_INTRUSION and not (self.external and "theta" not in item):
            self.theta(where, item)

    def multilingual(self, where: str, item: dict) -> None:
        langs, words = item.get("languages"), item.get("words")
        if not isinstance(langs, list) or len(langs) != 2 or not all(isinstance(x, str) for x in langs):
            self.fail(f"{where}.languages", "a list of two language codes", langs)
        if not isinstance(words, dict) or set(words) != set(langs):
            self.fail(f"{where}.words", f"an object with the word lists of {langs}", words)
        for lang in langs:
            self.words(f"{where}.words[{lang!r}]", words[lang])

    def theta(self, where: str, item: dict) -> None:
        theta, option_words = item.get("theta"), item.get("option_words")
        if not isinstance(theta, Mapping) or set(theta) != set(item["options"]):
            self.fail(f"{where}.theta", "an object giving each option's topic proportion", theta)
        for opt, value in theta.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                    math.isfinite(value) and value > 0):
                self.fail(f"{where}.theta[{opt!r}]", "a positive finite number (the log odds need log theta)",
                          value)
        if not isinstance(option_words, Mapping) or set(option_words) != set(item["options"]):
            self.fail(f"{where}.option_words", "an object giving each option topic's words", option_words)
        for opt, words in option_words.items():
            self.words(f"{where}.option_words[{opt!r}]", words)


def _is_number(text: str) -> bool:
    """A rating option: a string holding a finite number (``"2"``, ``"-1"``, ``"2.5"``)."""
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def is_external(raw: Mapping) -> bool:
    """A study describing judgments collected elsewhere (``settings.origin == "external"``).

    Parameters
    ----------
    raw : mapping
        The parsed study file.

    Returns
    -------
    bool
        Whether ``settings.origin`` is ``"external"``.
    """
    return isinstance(raw.get("settings"), Mapping) and raw["settings"].get("origin") == "external"


def validate_study(raw: object, source: str = "<study>") -> None:
    """Check a parsed study file against the schema; :class:`StudyFormatError` on the first violation.

    Beyond each item's fields: item ids are unique, and no two items of one
    task (check items aside) score the same topic or document, since their
    scores would overwrite each other.  An external study
    (``settings.origin: "external"``, from ``describe-study`` or ``import``)
    may leave out what was not released: a rating's ``words``, an intrusion
    item's ``answer``, a topic-intrusion item's ``theta``; scoring then reports
    which quantities cannot be computed and why.  Ratings may use any numeric
    scale (options ``"1"``, ``"2"``, ``"3"``).

    Parameters
    ----------
    raw : object
        The parsed study file (JSON).
    source : str
        The file's name, used in messages.

    Raises
    ------
    StudyFormatError
        On the first violation, naming the file, the item (position and id), the field, what was
        found and what is expected.
    """
    check = _Checker(source)
    check.top(raw)
    check.external = is_external(raw)
    seen: dict[str, int] = {}
    units: dict[tuple, str] = {}
    for pos, item in enumerate(raw["items"]):
        check.item(pos, item)
        if item["id"] in seen:
            check.fail(f"items[{pos}].id", f"unique (items[{seen[item['id']]}] has the same id)", item["id"])
        seen[item["id"]] = pos
        if not item.get("check"):
            unit = (item["task"], str(item.get("document", item.get("topic"))))
            if unit in units:
                check.fail(f"items[{pos}] ({item['id']!r})", f"the only {unit[0]} item about "
                           f"{unit[1]!r} ({units[unit]!r} is about it too)", unit[1])
            units[unit] = item["id"]
