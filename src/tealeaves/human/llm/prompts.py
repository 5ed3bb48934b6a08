"""Versioned task prompts for language models as annotators, and the strict reading of their answers.

Each task has a standard prompt, named by a version string that changes whenever its text does; the
version is part of the annotator's name and of every cache key, so answers to two texts never mix.

* ``stammbach2023-intrusion-v1`` (word intrusion) and ``stammbach2023-rating-v1`` (rating, on a
  3-point scale): the system prompts of Stammbach, Zouhar, Hoyle, Sachan and Ash (2023),
  *Revisiting automated topic model evaluation with large language models*, EMNLP, as released
  in their repository (``dominiksinsaarland/evaluating-topic-model-output``,
  ``src-human-correlations/chatGPT_evaluate_intruders.py`` and ``chatGPT_evaluate_topic_ratings.py``,
  the variant without a dataset description), reproduced character for character; the user
  message is the item's words as they built it (intrusion: each word in double quotes, joined
  by ``", "``; rating: the words joined by ``", "``).
* ``stammbach2023-rating-adapted-v1``: the same rating prompt for a scale of another length
  (whole numbers ``L .. H``, 2 to 10 points): the scale sentence names the study's own end
  points.  Not published: ours, named as such.
* ``chang2009-topic-intrusion-v1``: topic intrusion as Chang, Boyd-Graber, Gerrish, Wang and
  Blei (2009), *Reading tea leaves*, section 3.2, set the task to people (a document's title
  and opening, four topics each shown by its most probable words; which topic does not belong?),
  written by us in the style of the prompts above.

Each task also has variants (:data:`TASK_VARIANTS`; ``ask(prompts=...)`` asks several, each its own
annotator):

* ``stammbach2023-intrusion-nyt-v1``, ``stammbach2023-intrusion-wikipedia-v1``,
  ``stammbach2023-rating-nyt-v1``, ``stammbach2023-rating-wikipedia-v1``: Stammbach et al.'s
  prompts *with* a dataset description (the New York Times or Wikipedia corpus of Hoyle et al.
  2021's studies), from the same files, character for character.  The description is fixed by the
  version (never taken from the study), so a version always names one text.  The rating variants
  name a 1-3 scale only.
* ``chang2009-topic-intrusion-paraphrase-v1``: a second wording of the topic-intrusion task.  Not
  published: ours.

Answers are read strictly (:func:`parse_answer`): as they are (white space removed), else after
removing surrounding quotes, Markdown emphasis and code marks (``*``, ``_``, back-quotes),
zero-width characters and one final full stop, the answer must be one option of the item (a word of a
word-intrusion item, up to case; the number of a topic as it was shown) or a whole number on
the scale the prompt named.  Anything else is unusable, kept with its raw text.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from tealeaves._params import naming
from tealeaves.errors import ParameterError, StudyError
from tealeaves.human.items import RATING, TOPIC_INTRUSION, WORD_INTRUSION

#: The paper whose prompts are reproduced (rating and word intrusion).
STAMMBACH_2023 = ("Stammbach, D., Zouhar, V., Hoyle, A., Sachan, M. and Ash, E. (2023). Revisiting "
                  "automated topic model evaluation with large language models. EMNLP 2023, 9348-9357.")
#: The paper whose task the topic-intrusion prompt sets.
CHANG_2009 = ("Chang, J., Boyd-Graber, J., Gerrish, S., Wang, C. and Blei, D. M. (2009). Reading tea leaves: "
              "how humans interpret topic models. NIPS 22, 288-296.")

_INTRUSION_SYSTEM = (
    "You are a helpful assistant evaluating the top words of a topic model output for a given topic. "
    "Select which word is the least related to all other words. If multiple words do not fit, choose "
    "the word that is most out of place.\nReply with a single word.")
_RATING_SYSTEM = (
    "You are a helpful assistant evaluating the top words of a topic model output for a given topic. "
    "Please rate how related the following words are to each other on a scale from 1 to 3 (\"1\" = not "
    "very related, \"2\" = moderately related, \"3\" = very related). \nReply with a single number, "
    "indicating the overall appropriateness of the topic.")
_RATING_ADAPTED_SYSTEM = (
    "You are a helpful assistant evaluating the top words of a topic model output for a given topic. "
    "Please rate how related the following words are to each other on a scale from {low} to {high} "
    "(\"{low}\" = not very related, \"{high}\" = very related). \nReply with a single number, "
    "indicating the overall appropriateness of the topic.")
#: The dataset descriptions of Stammbach et al.'s prompts "with dataset description", as published (the
#: two corpora of Hoyle et al. 2021's human studies), by the name in the prompt versions.
DATASET_DESCRIPTIONS = {
    "nyt": ("The topic modeling is based on The New York Times corpus. The corpus consists of articles "
            "from 1987 to 2007. Sections from a typical paper include International, National, New York "
            "Regional, Business, Technology, and Sports news; features on topics such as Dining, Movies, "
            "Travel, and Fashion; there are also obituaries and opinion pieces."),
    "wikipedia": ("The topic modeling is based on the Wikipedia corpus. Wikipedia is an online "
                  "encyclopedia covering a huge range of topics. Articles can include biographies "
                  "(\"George Washington\"), scientific phenomena (\"Solar Eclipse\"), art pieces "
                  "(\"La Danse\"), music (\"Amazing Grace\"), transportation (\"U.S. Route 131\"), "
                  "sports (\"1952 winter olympics\"), historical events or periods (\"Tang Dynasty\"), "
                  "media and pop culture (\"The Simpsons Movie\"), places (\"Yosemite National Park\"), "
                  "plants and animals (\"koala\"), and warfare (\"USS Nevada (BB-36)\"), among others."),
}
_INTRUSION_HEAD = ("You are a helpful assistant evaluating the top words of a topic model output for a given "
                   "topic. Select which word is the least related to all other words. If multiple words do "
                   "not fit, choose the word that is most out of place.")
_RATING_HEAD = ("You are a helpful assistant evaluating the top words of a topic model output for a given "
                "topic. Please rate how related the following words are to each other on a scale from 1 to "
                "3 (\"1\" = not very related, \"2\" = moderately related, \"3\" = very related). ")
_INTRUSION_TAIL = "\nReply with a single word."
_RATING_TAIL = "\nReply with a single number, indicating the overall appropriateness of the topic."
#: Their system prompts with a dataset description, character for character (the NYT intrusion prompt
#: has a space before its first line break, the Wikipedia one none; both rating prompts have one).
_DESCRIBED_SYSTEM = {
    (WORD_INTRUSION, "nyt"): f"{_INTRUSION_HEAD} \n{DATASET_DESCRIPTIONS['nyt']}{_INTRUSION_TAIL}",
    (WORD_INTRUSION, "wikipedia"): f"{_INTRUSION_HEAD}\n{DATASET_DESCRIPTIONS['wikipedia']}{_INTRUSION_TAIL}",
    **{(RATING, name): f"{_RATING_HEAD}\n{text}{_RATING_TAIL}"
       for name, text in DATASET_DESCRIPTIONS.items()},
}
_TOPIC_INTRUSION_SYSTEM = (
    "You are a helpful assistant evaluating the output of a topic model. You are shown the title and the "
    "opening of a document, and {n} topics, each described by its most probable words. {n_in} of the "
    "topics are likely to be found in the document; one is not. Select the topic that does not belong "
    "to the document.\nReply with the number of that topic only.")
_TOPIC_INTRUSION_PARAPHRASE_SYSTEM = (
    "You are a helpful assistant checking which topics of a topic model a document is about. Below are "
    "the title and the opening of a document, then {n} numbered topics, each given by its most probable "
    "words. The document is about {n_in} of them. Which topic is the document not about?\nReply with the "
    "number of that topic only.")

#: The most points a rating prompt names (a single number on a longer scale is not a rating people gave).
MAX_SCALE_POINTS = 10

#: Why an answer is unusable, in report order.
UNUSABLE = ("empty", "not_an_option", "not_on_scale")


@dataclass(frozen=True)
class Prompt:
    """One task's prompt: its version, system text, source and sampling limit.

    Parameters
    ----------
    version : str
        The version string (part of the annotator's name and of the cache key).
    task : str
        The study task it asks (``word_intrusion``, ``rating``, ``topic_intrusion``).
    system : str
        The system message (a template with ``{low}``/``{high}`` or ``{n}``/``{n_in}`` where noted).
    source : str
        The citation, and whether the text is published or ours.
    max_tokens : int
        The answer's token limit sent with each request.
    """

    version: str
    task: str
    system: str
    source: str
    max_tokens: int


#: The prompts, by version.
PROMPTS = {p.version: p for p in (
    Prompt("stammbach2023-intrusion-v1", WORD_INTRUSION, _INTRUSION_SYSTEM,
           f"{STAMMBACH_2023} Published text (their released code, without dataset description).", 15),
    Prompt("stammbach2023-rating-v1", RATING, _RATING_SYSTEM,
           f"{STAMMBACH_2023} Published text (their released code, without dataset description).", 5),
    Prompt("stammbach2023-rating-adapted-v1", RATING, _RATING_ADAPTED_SYSTEM,
           f"Adapted from {STAMMBACH_2023} Not published: the scale sentence names the study's scale.", 5),
    Prompt("chang2009-topic-intrusion-v1", TOPIC_INTRUSION, _TOPIC_INTRUSION_SYSTEM,
           f"The task of {CHANG_2009} Not published: our wording of their task.", 5),
    *(Prompt(f"stammbach2023-{'intrusion' if task == WORD_INTRUSION else 'rating'}-{name}-v1", task, text,
             f"{STAMMBACH_2023} Published text (their released code, with the {name} dataset description).",
             15 if task == WORD_INTRUSION else 5)
      for (task, name), text in _DESCRIBED_SYSTEM.items()),
    Prompt("chang2009-topic-intrusion-paraphrase-v1", TOPIC_INTRUSION, _TOPIC_INTRUSION_PARAPHRASE_SYSTEM,
           f"The task of {CHANG_2009} Not published: a second wording of ours (a prompt variant).", 5),
)}
#: The tasks a language model can be asked, each with its default prompt.
TASK_PROMPTS = {WORD_INTRUSION: "stammbach2023-intrusion-v1", RATING: "stammbach2023-rating-v1",
                TOPIC_INTRUSION: "chang2009-topic-intrusion-v1"}
#: The prompt versions ``prompts=`` may name, by task: the standard one (:data:`TASK_PROMPTS`) first, then
#: its variants.  ``stammbach2023-rating-adapted-v1`` is not among them: the standard rating prompt
#: becomes it on a scale other than 3 points.
TASK_VARIANTS = {task: (standard, *sorted(v for v, p in PROMPTS.items()
                                          if p.task == task and v != standard and "-adapted-" not in v))
                 for task, standard in TASK_PROMPTS.items()}


@dataclass(frozen=True)
class Question:
    """One item as asked: the messages, the prompt version, and how an answer maps to an option.

    Parameters
    ----------
    version : str
        The prompt version.
    messages : tuple of dict
        The chat messages (system, user).
    max_tokens : int
        The answer's token limit.
    answers : mapping of str to str
        What the model may reply (as the prompt named it, e.g. ``"3"`` or a word) -> the item's option.
    """

    version: str
    messages: tuple
    max_tokens: int
    answers: Mapping[str, str]


@dataclass(frozen=True)
class Answer:
    """A model's reply read strictly.

    Parameters
    ----------
    response : str or None
        The item option it denotes, or None when unusable.
    reason : str or None
        Why it is unusable (:data:`UNUSABLE`), None when usable.
    raw : str
        The reply as received.
    """

    response: str | None
    reason: str | None
    raw: str


def check_tasks(tasks: Sequence[str] | None) -> tuple[str, ...]:
    """The tasks to ask, checked against those with a prompt.

    Parameters
    ----------
    tasks : sequence of str, optional
        Task names (default: every task with a prompt, :data:`TASK_PROMPTS`).

    Returns
    -------
    tuple of str
        The tasks.

    Raises
    ------
    ParameterError
        When a task has no prompt (unknown, or ``multilingual_rating``) or ``tasks`` is empty.
    """
    if tasks is None:
        return tuple(TASK_PROMPTS)
    tasks = (tasks,) if isinstance(tasks, str) else tuple(tasks)
    unknown = [t for t in tasks if t not in TASK_PROMPTS]
    if unknown or not tasks:
        raise naming(ParameterError(f"tasks {list(tasks)!r}: no prompt for {unknown or 'an empty list'}",
                                    fix=f"choose from {', '.join(TASK_PROMPTS)}"), "tasks")
    return tasks


def check_prompts(prompts: Sequence[str] | None, tasks: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """The prompt versions to ask, by task: those listed for each task, else its standard prompt.

    Parameters
    ----------
    prompts : sequence of str, optional
        Prompt versions (:data:`TASK_VARIANTS`); None asks each task's standard prompt
        (:data:`TASK_PROMPTS`).  A task none of them belongs to is asked with its standard prompt.
    tasks : sequence of str
        The tasks asked (:func:`check_tasks`).

    Returns
    -------
    dict of str to tuple of str
        Per task, its versions in the order given.

    Raises
    ------
    ParameterError
        When a version is unknown, belongs to a task not asked, is listed twice, or ``prompts`` is
        empty.
    """
    by_task = {t: [] for t in tasks}
    listed = [] if prompts is None else [prompts] if isinstance(prompts, str) else list(prompts)
    known = {v: task for task, versions in TASK_VARIANTS.items() for v in versions}
    for version in listed:
        task = known.get(version)
        if task is None or task not in by_task or version in by_task[task]:
            why = ("is listed twice" if task in by_task else f"is a {task} prompt and {task} is not asked"
                   if task else "is not a prompt version")
            names = "; ".join(f"{t}: {', '.join(TASK_VARIANTS[t])}" for t in tasks)
            raise naming(ParameterError(f"prompts: {version!r} {why}",
                                        fix=f"choose among the asked tasks' prompts ({names})"), "prompts")
        by_task[task].append(version)
    if prompts is not None and not listed:
        raise naming(ParameterError("prompts is an empty list", fix="name at least one prompt version, or "
                                    "leave it out (each task's standard prompt)"), "prompts")
    return {t: tuple(v) or (TASK_PROMPTS[t],) for t, v in by_task.items()}


def rating_scale(options: Sequence[str], where: str = "the study") -> list[int]:
    """The whole-number scale a rating item's options form, low to high, if a prompt can name it.

    Parameters
    ----------
    options : sequence of str
        A rating item's options (numbers as strings, any order).
    where : str
        The item, for the message.

    Returns
    -------
    list of int
        The scale's values, ascending.

    Raises
    ------
    StudyError
        When the options are not consecutive whole numbers, or have fewer than 2 or more than
        :data:`MAX_SCALE_POINTS` points: a prompt asking for a single number cannot express the scale.
    """
    try:
        values = sorted(float(o) for o in options)
    except (TypeError, ValueError):
        values = []
    whole = bool(values) and all(v.is_integer() for v in values)
    points = [int(v) for v in values] if whole else []
    consecutive = whole and points == list(range(points[0], points[0] + len(points)))
    if not consecutive or not 2 <= len(points) <= MAX_SCALE_POINTS:
        raise StudyError(f"{where}: the rating scale {list(options)} cannot be put to a language model: the "
                         f"prompt asks for one whole number on a scale of 2 to {MAX_SCALE_POINTS} "
                         "consecutive whole numbers",
                         fix="rate on a scale such as 1-3 or 0-2 (describe the study with that scale), "
                             "or leave the rating task out")
    return points


def lacks_words(item: Mapping) -> bool:
    """Whether ``item`` lacks what its prompt shows.

    A study described from released scores may hold such items; :func:`question` refuses them.

    Parameters
    ----------
    item : mapping
        A study item (its ``task``, ``options``, ``words`` and ``option_words`` are read).

    Returns
    -------
    bool
        True for a word-intrusion item without options, a rating item without words, or a
        topic-intrusion item without its topics' words.
    """
    task, options = item.get("task"), item.get("options")
    if task == RATING:
        return not (isinstance(item.get("words"), list) and item["words"])
    if not isinstance(options, list) or not options:
        return True
    if task == TOPIC_INTRUSION:
        words = item.get("option_words")
        return not isinstance(words, Mapping) or any(str(o) not in words for o in options)
    return False


def _shuffled(values: Sequence, seed: int | None, item_id: str, sample: int) -> list:
    """``values`` in the order of one sample: a permutation seeded by (study seed, item, sample)."""
    digest = hashlib.sha256(f"{seed}|{item_id}|{sample}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
    return [values[i] for i in rng.permutation(len(values))]


def _options_of(item: Mapping) -> tuple[str, ...]:
    return tuple(str(o) for o in item["options"])


def question(item: Mapping, *, seed: int | None, sample: int, version: str | None = None) -> Question:
    """The question one sample asks about ``item``: its words or topics in the sample's own order.

    The order is a permutation seeded by the study's seed, the item and the sample number, so a
    rerun asks exactly the same and different samples see different orders (as Stammbach et al.
    shuffled the words of each run).

    Parameters
    ----------
    item : mapping
        A study item (``word_intrusion``, ``rating`` or ``topic_intrusion``).
    seed : int or None
        The study's seed.
    sample : int
        The sample number (0, 1, ...).
    version : str, optional
        The prompt version, one of the item's task's :data:`TASK_VARIANTS` (default: the task's
        standard prompt, :data:`TASK_PROMPTS`).  Every version of a task shows the same order for the
        same sample, so variants differ only by their text.

    Returns
    -------
    Question
        The messages and the answers they admit.

    Raises
    ------
    StudyError
        When the item cannot be put as a question (a rating scale :func:`rating_scale` refuses, or
        the item lacks the words or topics the prompt shows: :func:`lacks_words`).
    ParameterError
        When the item's task has no prompt, or ``version`` is not one of its task's prompts.
    """
    task, item_id = item.get("task"), str(item.get("id"))
    if task not in TASK_PROMPTS:
        raise naming(ParameterError(f"item {item_id!r}: no prompt for the task {task!r}",
                                    fix=f"ask only {', '.join(TASK_PROMPTS)} (`tasks`)"), "tasks")
    version = check_prompts([version] if version else None, [task])[task][0]
    if lacks_words(item):
        raise StudyError(f"item {item_id!r} lacks the words its prompt shows",
                         fix="build the study with `tealeaves human build-study`, or describe it with the "
                             "topics' words")
    if task == WORD_INTRUSION:
        words = _shuffled(_options_of(item), seed, item_id, sample)
        prompt = PROMPTS[version]
        user = ", ".join(f'"{w}"' for w in words)
        return Question(prompt.version, _messages(prompt.system, user), prompt.max_tokens,
                        {w: w for w in words})
    if task == RATING:
        return _rating_question(item, seed, sample, version)
    return _topic_question(item, seed, sample, version)


def _messages(system: str, user: str) -> tuple:
    return ({"role": "system", "content": system}, {"role": "user", "content": user})


def _rating_question(item: Mapping, seed: int | None, sample: int, version: str) -> Question:
    item_id = str(item["id"])
    words = item["words"]
    scale = rating_scale(_options_of(item), f"rating item {item_id!r}")
    by_value = {int(float(o)): o for o in _options_of(item)}
    if len(scale) != 3 and version != TASK_PROMPTS[RATING]:
        raise StudyError(f"rating item {item_id!r}: the prompt {version!r} names a 1-3 scale, the study "
                         f"rates on {len(scale)} points ({scale[0]}-{scale[-1]})",
                         fix=f"ask it with {TASK_PROMPTS[RATING]} (adapted to any scale of 2 to "
                             f"{MAX_SCALE_POINTS} points), or rate on 3 points")
    if len(scale) == 3:  # a published 1-3 prompt; its answers map onto the study's scale, low to high
        prompt = PROMPTS[version]
        system = prompt.system
        answers = {str(k + 1): by_value[v] for k, v in enumerate(scale)}
    else:
        prompt = PROMPTS["stammbach2023-rating-adapted-v1"]
        system = prompt.system.format(low=scale[0], high=scale[-1])
        answers = {str(v): by_value[v] for v in scale}
    user = ", ".join(_shuffled([str(w) for w in words], seed, item_id, sample))
    return Question(prompt.version, _messages(system, user), prompt.max_tokens, answers)


def _topic_question(item: Mapping, seed: int | None, sample: int, version: str) -> Question:
    item_id = str(item["id"])
    words = item["option_words"]
    options = _options_of(item)
    prompt = PROMPTS[version]
    shown = _shuffled(options, seed, item_id, sample)
    lines = [f"{n}. {', '.join(str(w) for w in words[o])}" for n, o in enumerate(shown, 1)]
    user = (f"Title: {item.get('title') or ''}\n\n{item.get('text') or ''}\n\nTopics:\n" + "\n".join(lines))
    system = prompt.system.format(n=len(shown), n_in=len(shown) - 1)
    return Question(prompt.version, _messages(system, user), prompt.max_tokens,
                    {str(n): o for n, o in enumerate(shown, 1)})


#: What may wrap an answer: white space, quotes, Markdown's ``*``, ``_`` and back-quotes (a code fence
#: too), and invisible zero-width characters.  A reply is first matched whole (stripped of white space
#: only), so an option that itself begins or ends with one of them is still read.
_WRAPPERS = re.compile(r"""^[\s"'`“”‘’*_\u200b\u200c\u200d\u2060\ufeff]+|"""
                       r"""[\s"'`“”‘’*_\u200b\u200c\u200d\u2060\ufeff]+$""")


def parse_answer(question: Question, text: str | None) -> Answer:
    """Read a reply strictly: an answer the question admits, or unusable (module docstring).

    Parameters
    ----------
    question : Question
        The question asked (:func:`question`).
    text : str or None
        The reply.

    Returns
    -------
    Answer
        The option it denotes, or the reason it is unusable, with the raw text.
    """
    raw = "" if text is None else str(text)
    core = _WRAPPERS.sub("", raw)
    if not core:
        return Answer(None, "empty", raw)
    said = [raw.strip(), core] + ([_WRAPPERS.sub("", core[:-1])] if core.endswith(".") else [])
    folded: dict[str, set] = {}
    for reply, option in question.answers.items():
        folded.setdefault(reply.casefold(), set()).add(option)
    for text_said in said:
        if text_said in question.answers:
            return Answer(question.answers[text_said], None, raw)
        hit = folded.get(text_said.casefold())
        if hit is not None and len(hit) == 1:
            return Answer(next(iter(hit)), None, raw)
    scale = PROMPTS[question.version].task == RATING
    return Answer(None, "not_on_scale" if scale else "not_an_option", raw)
