"""Ask a language model a study's items, and store its answers as an annotator's judgments.

:func:`ask` puts every item of a study (word intrusion, rating, topic intrusion; attention
checks are left out, as they screen people) to a model behind an OpenAI-compatible
chat-completions endpoint (:class:`~tealeaves.human.llm.client.ChatClient`), with the versioned
prompts of :mod:`tealeaves.human.llm.prompts`, reads each reply strictly, and writes the usable
ones into the judgment database ``tealeaves annotate serve`` and ``tealeaves human import``
write, so ``tealeaves human score``, agreement, ``human correlate`` and ``human compare`` treat
the model as one more annotator.

Each prompt version asked (``prompts``: the task's standard prompt by default, or several variants)
and each sample ``s = 0 .. n_samples - 1`` of an item is a separate annotator, named
``llm:<model>@<host>/<prompt_version>/t<temperature>/s<s>`` (:func:`annotator_name`): its
options (or rated words, or topics) are shown in an order seeded by the study's seed, the item
and ``s``, and the request carries ``seed=s`` (honoured by endpoints that support seeds), so the
bootstrap over annotators measures the model's own variability.

The database keeps, per annotator, the metadata of its answers (``llm_annotator:<name>`` in its
``meta`` table, JSON: model, endpoint host, prompt version and source, temperature, seed, sample,
answer token limit, option order, first and last answer times, unusable replies with their raw
text).  The endpoint's path, query and credentials and the API key are never written.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from tealeaves._params import naming
from tealeaves.errors import EmptyInputError, ParameterError
from tealeaves.human.llm import prompts as pr
from tealeaves.human.llm.meta import META_PREFIX, answer_dates, read_meta
from tealeaves.human.params import N_SAMPLES, TEMPERATURE
from tealeaves.human.study import Study
from tealeaves.signature import Signature

#: The ``platform`` of the judgments :func:`ask` writes.
PLATFORM = "llm"
#: The longest piece of an unusable reply kept in the report and the database's metadata, in characters
#: (a reply may be megabytes long; the cache keeps it whole).
RAW_KEPT = 1000


@dataclass
class AskReport:
    """What :func:`ask` asked, what came back, and where it went.

    Parameters
    ----------
    counts : dict
        ``requests`` (one per item and sample), ``asked`` (answered by the endpoint in this run),
        ``cached`` (answered from the cache: no request sent), ``usable``, ``unusable``,
        ``failed`` (no answer: the error is in ``failed``), ``not_asked`` (left out by
        ``max_requests`` or ``time_budget``), and the database's outcome of the judgments
        (``stored``, ``duplicate``: already stored by an earlier run, ``conflict``).
    annotators : list of str
        The annotators written (one per prompt version and sample).
    unusable : list of dict
        ``item_id``, ``annotator``, ``reason`` (:data:`~tealeaves.human.llm.prompts.UNUSABLE`)
        and ``raw`` (the reply as received, its first :data:`RAW_KEPT` characters; then
        ``raw_length`` gives its length).
    failed : list of dict
        ``item_id``, ``annotator``, ``error``, ``attempts``.
    skipped : dict
        Items of the study not put to the model, by reason (``check``, ``task``: not among
        ``tasks``, ``no_words``: the item lacks what the prompt shows).
    metadata : dict
        Per annotator, the metadata written with its judgments (module docstring).
    signature : Signature
        The settings that determine the answers (study, model, host, prompts, temperature,
        samples, first and last answer dates).
    client : dict
        The transport's counters (:attr:`~tealeaves.human.llm.client.ChatClient.stats`).
    output : str
        The judgment database written.
    """

    counts: dict
    annotators: list[str]
    unusable: list[dict] = field(default_factory=list)
    failed: list[dict] = field(default_factory=list)
    skipped: dict = field(default_factory=dict)
    metadata: dict = field(default_factory=dict)
    signature: Signature | None = None
    client: dict = field(default_factory=dict)
    output: str = ""

    def to_dict(self) -> dict:
        """The report as a JSON-ready dictionary.

        Returns
        -------
        dict
            Every field, the signature as text.
        """
        return {"signature": str(self.signature), "output": self.output, "counts": self.counts,
                "annotators": self.annotators, "skipped": self.skipped, "unusable": self.unusable,
                "failed": self.failed, "client": self.client, "metadata": self.metadata}


def endpoint_host(endpoint: str) -> str:
    """The host (and port) of an endpoint URL: what an annotator's name and the metadata record.

    Parameters
    ----------
    endpoint : str
        The endpoint's base URL (:func:`~tealeaves.human.llm.client.check_endpoint`).

    Returns
    -------
    str
        ``host`` or ``host:port`` (an endpoint holds no credentials; its path is not recorded).

    Raises
    ------
    ParameterError
        When ``endpoint`` is not an http(s) URL with a host.

    Examples
    --------
    >>> endpoint_host("http://127.0.0.1:8080/v1")
    '127.0.0.1:8080'
    """
    from tealeaves.human.llm.client import check_endpoint

    return urlsplit(check_endpoint(endpoint)).netloc


def annotator_name(model: str, host: str, version: str, temperature: float, sample: int) -> str:
    """``llm:<model>@<host>/<prompt_version>/t<temperature>/s<sample>`` (temperature written with ``%g``).

    Parameters
    ----------
    model : str
        The model's name as sent to the endpoint.
    host : str
        The endpoint's host (:func:`endpoint_host`).
    version : str
        The prompt version.
    temperature : float
        The sampling temperature.
    sample : int
        The sample number.

    Returns
    -------
    str
        The annotator's name.

    Examples
    --------
    >>> annotator_name("llama-3-8b", "127.0.0.1:8080", "stammbach2023-rating-v1", 0.7, 2)
    'llm:llama-3-8b@127.0.0.1:8080/stammbach2023-rating-v1/t0.7/s2'
    """
    return f"llm:{model}@{host}/{version}/t{temperature:g}/s{sample}"


def _check_model(model: object) -> str:
    if not isinstance(model, str) or not model.strip() or any(c.isspace() for c in model.strip()):
        raise naming(ParameterError(f"model {model!r} must be a non-empty name without spaces",
                                    fix="give the model's name as the endpoint knows it"), "model")
    return model.strip()


@dataclass(frozen=True)
class _Asked:
    """One request to make: its item, sample, annotator and question."""

    item_id: str
    sample: int
    annotator: str
    question: pr.Question


def _plan(study: Study, versions: dict[str, tuple[str, ...]], n_samples: int, model: str, host: str,
          temperature: float) -> tuple[list[_Asked], Counter]:
    """Every (item, prompt version, sample) to ask (``versions``: per task asked, its prompt versions),
    and the items left out by reason."""
    skipped: Counter = Counter()
    plan: list[_Asked] = []
    for item in study.items:
        reason = ("check" if item.get("check") else "task" if item.get("task") not in versions
                  else "no_words" if pr.lacks_words(item) else None)
        if reason:
            skipped[reason] += 1
            continue
        for version in versions[item["task"]]:
            for sample in range(n_samples):
                q = pr.question(item, seed=study.seed, sample=sample, version=version)
                plan.append(_Asked(str(item["id"]), sample,
                                   annotator_name(model, host, q.version, temperature, sample), q))
    return plan, skipped


def _digest(q: pr.Question, temperature: float, sample: int) -> str:
    """A digest of everything a request sends besides the model: its cache key's last part."""
    blob = json.dumps({"messages": q.messages, "max_tokens": q.max_tokens, "temperature": temperature,
                       "seed": sample}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def requests_for(plan: Sequence[_Asked], temperature: float) -> list:
    """The chat requests of a plan, keyed ``(prompt_version, item_id, "t<T>/s<s>", digest)``.

    Parameters
    ----------
    plan : sequence
        The items and samples to ask (:func:`_plan`).
    temperature : float
        The sampling temperature.

    Returns
    -------
    list of ChatRequest
        One per entry of ``plan``.
    """
    from tealeaves.human.llm.client import ChatRequest

    return [ChatRequest(key=(a.question.version, a.item_id, f"t{temperature:g}/s{a.sample}",
                             _digest(a.question, temperature, a.sample)),
                        messages=a.question.messages, temperature=temperature, seed=a.sample,
                        max_tokens=a.question.max_tokens)
            for a in plan]


def _metadata(plan, results, model: str, host: str, temperature: float) -> dict:
    """Per annotator: the settings of its answers and their first and last dates."""
    out: dict[str, dict] = {}
    for asked, res in zip(plan, results):
        prompt = pr.PROMPTS[asked.question.version]
        meta = out.setdefault(asked.annotator, {
            "model": model, "endpoint_host": host, "prompt_version": prompt.version, "task": prompt.task,
            "prompt_source": prompt.source, "temperature": temperature, "seed": asked.sample,
            "sample": asked.sample, "max_tokens": asked.question.max_tokens,
            "option_order": "shuffled per sample by (study seed, item, sample)",
            "first_answer": None, "last_answer": None, "unusable": {}})
        if res.status == "ok" and res.created:
            meta["first_answer"] = min(filter(None, (meta["first_answer"], res.created)))
            meta["last_answer"] = max(filter(None, (meta["last_answer"], res.created)))
    return out


def ask(study: Study | str | Path, *, endpoint: str, model: str, output: str | Path,
        tasks: Sequence[str] | None = None, prompts: Sequence[str] | None = None, n_samples: int = 1,
        temperature: float = 0.0,
        n_jobs: int = 4, requests_per_minute: float | None = None, max_requests: int | None = None,
        time_budget: float | None = None, api_key_env: str | None = "OPENAI_API_KEY",
        cache: str | Path | None = None, timeout: float = 60.0, max_retries: int = 5, backoff: float = 1.0,
        progress: bool = False) -> AskReport:
    """Ask a language model every item of ``study``; store its answers as judgments (module docstring).

    Parameters
    ----------
    study : Study or str or os.PathLike
        The study, or its file (as ``tealeaves human build-study`` writes it).
    endpoint : str
        The base URL of an OpenAI-compatible API (``http://127.0.0.1:8080/v1``); requests go to
        ``{endpoint}/chat/completions``.
    model : str
        The model's name, as the endpoint knows it.
    output : str or os.PathLike
        The judgment database (``.sqlite``, ``.sqlite3``, ``.db``; created if absent, bound to the
        study), as ``tealeaves annotate serve --db`` and ``tealeaves human import`` write.
    tasks : sequence of str, optional
        The tasks to ask (default every task with a prompt:
        :data:`~tealeaves.human.llm.prompts.TASK_PROMPTS`).
    prompts : sequence of str, optional
        The prompt versions to ask (:data:`~tealeaves.human.llm.prompts.TASK_VARIANTS`): each asks
        every item of its task, and each (version, sample) is its own annotator.  A task asked
        without a listed version is asked with its standard prompt (the default for every task).
    n_samples : int, default 1
        Samples per item; sample ``s`` is the annotator ``.../s<s>``.
    temperature : float, default 0.0
        The sampling temperature (0-2).
    n_jobs : int, default 4
        Requests in flight at once.
    requests_per_minute : float, optional
        Rate limit.
    max_requests : int, optional
        Send at most this many requests (cached answers do not count).
    time_budget : float, optional
        Stop sending new requests after this many seconds.
    api_key_env : str or None, default "OPENAI_API_KEY"
        The environment variable holding the API key (sent as ``Authorization: Bearer``; never
        written anywhere); None sends no key.
    cache : str or os.PathLike, optional
        The request cache (SQLite; default ``<output>.llm-cache.sqlite`` beside the database; never
        ``output`` itself).  A rerun sends only what it lacks.  A run holds ``<cache>.lock``: a second
        run on the same cache at the same time is refused.
    timeout : float, default 60.0
        Seconds to wait for one response.
    max_retries : int, default 5
        Retries after a 429, a 5xx, a timeout or a dropped connection.
    backoff : float, default 1.0
        Seconds before the first retry, doubled for each further one (with jitter).
    progress : bool, default False
        Show the run's progress on standard error (:class:`~tealeaves.human.llm.client.ChatProgress`).

    Returns
    -------
    AskReport
        The counts, annotators, unusable replies, failures, metadata and signature.

    Raises
    ------
    ParameterError
        For an endpoint that is not http(s), an empty model name, an unknown task, a prompt version
        that is unknown or of a task not asked, or a setting out of range.
    StudyError
        When a rating item's scale cannot be put in the prompt
        (:func:`~tealeaves.human.llm.prompts.rating_scale`; a variant with a dataset description
        names a 1-3 scale only).
    EmptyInputError
        When the study has no item to ask (none, or only checks or other tasks).
    StoreError
        When ``output`` is not a judgment database of this study (refused before any request).
    ChatCacheError
        When the cache is not an answer cache, or another run holds it (``<cache>.lock``).
    """
    host = endpoint_host(endpoint)
    model = _check_model(model)
    tasks = pr.check_tasks(tasks)
    versions = pr.check_prompts(prompts, tasks)
    n_samples, temperature = N_SAMPLES.check(n_samples), TEMPERATURE.check(temperature)
    output = _check_output(output)
    if not isinstance(study, Study):
        study = Study.load(study)
    plan, skipped = _plan(study, versions, n_samples, model, host, temperature)
    if not plan:
        raise EmptyInputError(f"the study {study.name!r} has no item to ask a language model: "
                              f"{dict(skipped) or 'no items'} (checks are not asked)",
                              fix=f"build a study with one of the tasks {', '.join(tasks)}")
    from tealeaves.human.llm.client import ChatClient, ChatProgress

    cache = _check_cache(cache, output)
    _check_store(study, output)
    with _run_lock(cache):
        with ChatClient(endpoint, model, cache=cache, api_key_env=api_key_env, n_jobs=n_jobs,
                        requests_per_minute=requests_per_minute, max_requests=max_requests,
                        time_budget=time_budget, timeout=timeout, max_retries=max_retries,
                        backoff=backoff) as client:
            results = client.run(requests_for(plan, temperature),
                                 progress=ChatProgress(len(plan)) if progress else None)
        return _collect(study, plan, results, client, output, skipped,
                        {"model": model, "host": host, "temperature": temperature, "n_samples": n_samples})


def _check_output(output) -> Path:
    from tealeaves.human.store import STORE_SUFFIXES

    path = Path(output).expanduser()
    if path.suffix.lower() not in STORE_SUFFIXES:
        raise naming(ParameterError(f"output {str(output)!r} must be a judgment database named "
                                    f"{', '.join(STORE_SUFFIXES)}",
                                    fix="e.g. `output='judgments.sqlite'`; `tealeaves annotate export` "
                                        "writes it as CSV"), "output")
    return path


def _check_cache(cache, output: Path) -> Path:
    """The cache's path (default ``<output>.llm-cache.sqlite``); never the judgment database itself."""
    path = output.with_name(output.name + ".llm-cache.sqlite") if cache is None else Path(cache).expanduser()
    if path.resolve() == output.resolve():
        raise naming(ParameterError(f"cache {str(cache)!r} is the judgment database (output) itself",
                                    fix="give the cache its own file, or leave it out "
                                        "(default: <output>.llm-cache.sqlite)"), "cache", "output")
    return path


def _check_store(study: Study, output: Path) -> None:
    """Refuse an output that is not this study's judgment database (another study, another kind of
    file, corrupt, damaged metadata) before any request is sent; a missing one is created later."""
    from tealeaves.human.store import JudgmentStore, _check_db_path

    if not output.exists():
        _check_db_path(output, must_exist=False)  # a folder, or a missing parent folder
        return
    store = JudgmentStore(output, "NORMAL")
    try:
        store.bind_study(study.fingerprint, study.name)
        read_meta(store, output)
    finally:
        store.close()


@contextmanager
def _run_lock(cache: Path) -> Iterator[None]:
    """Hold ``<cache>.lock`` (``flock``, exclusive, not waiting) for the run: a second run on the same
    cache is refused rather than asking again what the first has not yet stored.  Without ``fcntl``
    (Windows), or where the lock file cannot be made (the cache then reports its folder), no lock."""
    from tealeaves.errors import ChatCacheError

    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    lock = cache.with_name(cache.name + ".lock")
    try:
        handle = open(lock, "a+b")
    except OSError:
        yield
        return
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ChatCacheError(f"answer cache '{cache}' is in use by another run (it holds '{lock.name}')",
                                 fix="wait for that run to end, then run again: it asks only what is "
                                     "still missing") from None
        yield


def _is_budget(result) -> bool:
    """A request the client did not send (over ``max_requests`` or ``time_budget``, or stopped early)."""
    return result.status == "not_asked"


def _collect(study, plan, results, client, output: Path, skipped: Counter, run: dict) -> AskReport:
    """Read the replies, write the usable ones as judgments, and build the report."""
    meta = _metadata(plan, results, run["model"], run["host"], run["temperature"])
    rows, unusable, failed, not_asked = [], [], [], 0
    for asked, res in zip(plan, results):
        if res.status != "ok":
            if _is_budget(res):
                not_asked += 1
            else:
                failed.append({"item_id": asked.item_id, "annotator": asked.annotator, "error": res.error,
                               "attempts": res.attempts})
            continue
        answer = pr.parse_answer(asked.question, res.text)
        if answer.response is None:
            kept = _kept(answer.raw)
            unusable.append({"item_id": asked.item_id, "annotator": asked.annotator, "reason": answer.reason,
                             **kept})
            meta[asked.annotator]["unusable"][asked.item_id] = {"reason": answer.reason, **kept}
        else:
            rows.append((asked.annotator, asked.item_id, answer.response))
    stored = _store(study, output, rows, meta)
    counts = {"requests": len(plan), "asked": sum(r.status == "ok" and not r.cached for r in results),
              "cached": sum(bool(r.cached) for r in results), "usable": len(rows), "unusable": len(unusable),
              "failed": len(failed), "not_asked": not_asked, **stored}
    fields = {"study": study.fingerprint, "model": run["model"], "host": run["host"],
              "prompts": sorted({a.question.version for a in plan}), "t": run["temperature"],
              "samples": run["n_samples"],
              "dates": answer_dates(meta.values())}
    return AskReport(counts=counts, annotators=sorted(meta), unusable=unusable, failed=failed,
                     skipped=dict(skipped), metadata=meta, signature=Signature("llm-annotators", fields),
                     client=dict(client.stats), output=str(output))


def _kept(raw: str) -> dict:
    """An unusable reply as the report and the metadata keep it: ``raw``, cut to :data:`RAW_KEPT`
    characters, and then ``raw_length`` (the whole reply stays in the cache)."""
    if len(raw) <= RAW_KEPT:
        return {"raw": raw}
    return {"raw": raw[:RAW_KEPT], "raw_length": len(raw)}


def _store(study: Study, output: Path, rows: list[tuple], meta: dict) -> dict:
    """Write the judgments (idempotently) and each annotator's metadata into the judgment database."""
    from tealeaves.human.store import JudgmentStore

    store = JudgmentStore(output, "NORMAL")
    counts: Counter = Counter({"stored": 0, "duplicate": 0, "conflict": 0})
    try:
        store.bind_study(study.fingerprint, study.name)
        store.ensure_annotators(sorted(meta))
        old = read_meta(store, output)  # first: a judgment stored (then Ctrl-C) always has its metadata
        store.set_meta({META_PREFIX + name: json.dumps(_merge(old.get(name), m), sort_keys=True)
                        for name, m in meta.items()})
        for annotator, item_id, response in rows:
            key = hashlib.sha256(f"{PLATFORM}\x00{item_id}\x00{annotator}".encode()).hexdigest()[:32]
            counts[store.submit(annotator, item_id, response, key, platform=PLATFORM)] += 1
    finally:
        store.close()
    return dict(counts)


def _merge(before: dict | None, new: dict) -> dict:
    """An annotator's metadata after another run: the dates widened, unusable replies kept."""
    if not before:
        return new
    merged = {**before, **new, "unusable": {**before.get("unusable", {}), **new["unusable"]}}
    for key, pick in (("first_answer", min), ("last_answer", max)):
        known = [d for d in (before.get(key), new.get(key)) if d]
        merged[key] = pick(known) if known else None
    return merged
