"""Correlation of human scores with automatic measures, with seeded bootstrap intervals over topics.

Pearson's r, Spearman's rho (Pearson's r of average ranks) and Kendall's
tau-b, ``(P - Q) / sqrt((P + Q + T_x) (P + Q + T_y))`` with ``P``/``Q`` the
concordant/discordant pairs and ``T_x``/``T_y`` the pairs tied only in x / y.
Confidence intervals are percentile intervals over ``n_boot`` resamples of
topics with replacement; resamples in which either variable is constant
(correlation undefined) are skipped and counted.

A percentile interval need not contain the estimate.  With few topics and tied
scores (a 0/1 intrusion accuracy) a resample repeats topics, which adds ties,
and skipping the constant resamples keeps only some of them; the bootstrap
distribution can then lie on one side of the estimate.  Eight topics with one
scored 0, the one people rated lowest: rho = 1/sqrt(3) = 0.577 is the smallest
value any defined resample gives, and the 95% interval is [0.581, 0.889].  The
interval is what it says (the percentiles of the resampled correlations of paired
topics); read it, with ``n_degenerate``, as a sign that the data are too few and
too coarse for an interval to mean much.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves.errors import CorrelationError  # defined in tealeaves.errors; importable here as before
from tealeaves.human.llm.meta import signed_llm
from tealeaves.human.resampling import LEVELS, draw, responses_for, true_score_ci
from tealeaves.signature import Signature
from tealeaves.validation import check_choice, check_seed

METHODS = ("pearson", "spearman", "kendall")


def rankdata(x: np.ndarray) -> np.ndarray:
    """Average ranks (1-based), ties sharing the mean of their positions.

    Parameters
    ----------
    x : numpy.ndarray
        The values.

    Returns
    -------
    numpy.ndarray
        The rank of each value, as floats.

    Examples
    --------
    >>> rankdata([10, 20, 20, 5])
    array([2. , 3.5, 3.5, 1. ])
    """
    x = np.asarray(x, dtype=np.float64)
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
    ends = np.r_[starts[1:], xs.size]
    avg = (starts + ends + 1) / 2.0
    ranks = np.empty_like(x)
    ranks[order] = np.repeat(avg, ends - starts)
    return ranks


@shared_doc
def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson's product-moment correlation.

    ``r = sum (x - xbar)(y - ybar) / sqrt(sum (x - xbar)^2 sum (y - ybar)^2)``, clipped to [-1, 1].

    Parameters: %(paired_values)s

    Returns
    -------
    float
        Pearson's r.

    Raises: %(raises_constant)s
    """
    x, y = np.asarray(x, float) - np.mean(x), np.asarray(y, float) - np.mean(y)
    den = np.sqrt((x * x).sum() * (y * y).sum())
    if den == 0:
        raise CorrelationError("correlation is undefined: one of the variables is constant")
    return float(np.clip((x * y).sum() / den, -1.0, 1.0))


@shared_doc
def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rho: Pearson's r of the average ranks.

    Parameters: %(paired_values)s

    Returns
    -------
    float
        Spearman's rho.

    Raises: %(raises_constant)s
    """
    return pearson(rankdata(x), rankdata(y))


@shared_doc
def kendall(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's tau-b over all pairs (O(n^2), fine for topic counts).

    ``(P - Q) / sqrt((P + Q + T_x) (P + Q + T_y))`` (see the module docstring).

    Parameters: %(paired_values)s

    Returns
    -------
    float
        Kendall's tau-b.

    Raises: %(raises_constant)s
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    i, j = np.triu_indices(x.size, 1)
    sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    s = (sx * sy).sum()
    nx, ny = (sx != 0).sum(), (sy != 0).sum()
    if nx == 0 or ny == 0:
        raise CorrelationError("correlation is undefined: one of the variables is constant")
    return float(s / np.sqrt(float(nx) * float(ny)))


FUNCS = {"pearson": pearson, "spearman": spearman, "kendall": kendall}


def _scores(values: Mapping, what: str) -> dict[str, float]:
    """``{topic as str: value as float}`` of the non-``None`` values; a non-number is a CorrelationError."""
    if not isinstance(values, Mapping):
        raise CorrelationError(f"the {what} scores must be a mapping of topic to score, got "
                               f"{type(values).__name__}", fix="e.g. {'0': 0.4, '1': 0.7}")
    out = {}
    for k, v in values.items():
        if v is None:
            continue
        try:
            if isinstance(v, bool) or not isinstance(v, (int, float, str, np.integer, np.floating)):
                raise ValueError
            out[str(k)] = float(v)  # a number, or a number written as text (as a table cell)
        except ValueError:
            raise CorrelationError(f"the {what} score of topic {str(k)!r} is {v!r}, not a number",
                                   fix="give a number per topic (None to leave a topic out)") from None
    return out


@shared_doc
def align(human: Mapping, measure: Mapping) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Topics present in both mappings (keys compared as strings), with their values.

    Topics whose value is None in either mapping are left out.

    Parameters
    ----------
    %(human_scores)s
    measure : mapping
        Topic -> measure value.

    Returns
    -------
    keys : list of str
        The shared topics, ordered by length then text (``2`` before ``10``).
    x : numpy.ndarray
        Their human scores.
    y : numpy.ndarray
        Their measure values.

    Raises
    ------
    CorrelationError
        When a value is not a number (``"x"``, ``True``) or a shared topic has a non-finite value.
    """
    h, m = _scores(human, "human"), _scores(measure, "measure")
    keys = sorted(set(h) & set(m), key=lambda s: (len(s), s))
    bad = [k for k in keys if not (np.isfinite(h[k]) and np.isfinite(m[k]))]
    if bad:
        raise CorrelationError(f"non-finite scores for topics {bad[:5]}; drop or fix them")
    return keys, np.array([h[k] for k in keys]), np.array([m[k] for k in keys])


@shared_doc
def bootstrap_ci(x: np.ndarray, y: np.ndarray, method: str, *, n_boot: int = 2000, seed: int = 0,
                 level: float = 0.95, bootstrap: str = "topics", responses=None) -> dict:
    """Seeded percentile bootstrap interval of a correlation of human scores ``x`` with measure ``y``.

    ``bootstrap`` is the level resampled (:mod:`tealeaves.human.resampling`):
    ``topics`` (pairs of topics), ``annotators`` (each topic's responses,
    topics fixed) or ``both`` (two-stage); the last two need ``responses``
    (a :class:`~tealeaves.human.resampling.Responses` of the topics of ``x``).
    Resamples in which a variable is constant are skipped and counted.  With few topics and tied
    scores the interval may not contain the estimate (module docstring).

    Parameters
    ----------
    x : numpy.ndarray
        Human scores per topic.
    y : numpy.ndarray
        Measure values of the same topics.
    %(correlation_method)s %(bootstrap_n_boot)s %(bootstrap_seed)s %(bootstrap_level)s %(bootstrap_unit)s
    responses : Responses, optional
        Per-response values of the topics of ``x`` (ignored, as ``topics``, when None).

    Returns
    -------
    dict
        ``low``, ``high``, ``level``, ``n_boot``, ``n_degenerate`` (resamples skipped),
        ``seed`` and ``bootstrap``.

    Raises
    ------
    CorrelationError
        When every resample was constant.
    """
    rng = np.random.default_rng(seed)
    if bootstrap == "topics" or responses is None:
        idx = rng.integers(0, x.size, size=(n_boot, x.size))
        hx = x[idx]
    else:
        idx, hx, _ = draw(rng, responses, n_boot, bootstrap)
    stats = [s for s in (_safe(method, a, y[row]) for a, row in zip(hx, idx)) if s is not None]
    if not stats:
        raise CorrelationError("every bootstrap resample was constant; too few distinct topics")
    lo, hi = np.quantile(stats, [(1 - level) / 2, (1 + level) / 2])
    return {"low": float(lo), "high": float(hi), "level": level, "n_boot": n_boot,
            "n_degenerate": n_boot - len(stats), "seed": seed, "bootstrap": bootstrap}


def _safe(method: str, a: np.ndarray, b: np.ndarray) -> float | None:
    try:
        return FUNCS[method](a, b)
    except CorrelationError:
        return None


@shared_doc
def check_options(n_boot, seed, level, methods, bootstrap="topics"):
    """Validated ``(n_boot, seed, level, methods, bootstrap)`` of the correlation functions.

    Parameters
    ----------
    n_boot : int
        Bootstrap resamples (:data:`~tealeaves.human.params.N_BOOT` bounds).
    %(bootstrap_seed)s
    level : float
        Confidence level, strictly between 0 and 1.
    methods : iterable of str
        Correlations, among :data:`METHODS`.
    bootstrap : str
        The level resampled, among :data:`~tealeaves.human.resampling.LEVELS`.

    Returns
    -------
    tuple
        The checked values, ``methods`` as a list.

    Raises
    ------
    ParameterError
        When a value is out of range or not one of the choices.
    """
    from tealeaves.human.params import LEVEL, N_BOOT

    return (N_BOOT.check(n_boot), check_seed(seed), LEVEL.check(level),
            [check_choice(m, "method", METHODS) for m in methods],
            check_choice(bootstrap, "bootstrap", LEVELS))


@shared_doc
def correlate(human: Mapping, measure: Mapping, *, methods=METHODS, n_boot: int = 2000, seed: int = 0,
              level: float = 0.95, human_name: str = "human", measure_name: str = "measure",
              bootstrap: str = "topics", responses: Mapping | None = None,
              llm: Mapping | None = None) -> dict:
    """Correlations of a human score with a measure over the topics they share, with bootstrap CIs.

    ``responses`` (``{topic: [per-response values]}``) is needed for
    ``bootstrap="annotators"`` or ``"both"``; with ``both`` the Pearson entry
    also gets ``true_score``: the disattenuated correlation with the true
    per-topic scores and its two-stage shrinkage interval
    (:func:`tealeaves.human.resampling.true_score_ci`).

    Parameters
    ----------
    human : mapping
        Topic -> human score (e.g. model precision or mean rating).
    measure : mapping
        Topic -> value of the automatic measure (e.g. NPMI).
    methods : sequence of str
        Among ``pearson``, ``spearman`` and ``kendall``.
    %(bootstrap_n_boot)s %(bootstrap_seed)s
    level : float
        Confidence level of the intervals, in (0, 1).
    human_name : str
        Name of the human score, in the result and messages.
    measure_name : str
        Name of the measure, in the result and messages.
    bootstrap : {"topics", "annotators", "both"}
        The level resampled (:func:`bootstrap_ci`).
    responses : mapping, optional
        Topic -> per-response values of the human score.
    %(llm_signature)s

    Returns
    -------
    dict
        ``human``, ``measure``, ``n_topics``, ``signature``, and per method ``estimate`` and
        ``ci`` (:func:`bootstrap_ci`).

    Raises
    ------
    CorrelationError
        With fewer than 3 shared topics, non-finite scores, or responses missing for the
        annotator-level bootstrap.
    %(raises_option_range)s
    """
    n_boot, seed, level, methods, bootstrap = check_options(n_boot, seed, level, methods, bootstrap)
    llm = signed_llm(llm)
    keys, x, y = align(human, measure)
    if len(keys) < 3:
        raise CorrelationError(f"{human_name} and {measure_name} share {len(keys)} topics; "
                               "a correlation needs at least 3")
    resp = None if bootstrap == "topics" else responses_for(keys, responses, human_name)
    out = {"human": human_name, "measure": measure_name, "n_topics": len(keys),
           "signature": str(Signature("correlation", {"human": human_name, "measure": measure_name,
                                                      "boot": n_boot, "seed": seed, "ci": level,
                                                      "resample": bootstrap, **llm}))}
    for method in methods:
        out[method] = {"estimate": FUNCS[method](x, y),
                       "ci": bootstrap_ci(x, y, method, n_boot=n_boot, seed=seed, level=level,
                                          bootstrap=bootstrap, responses=resp)}
    if bootstrap == "both" and "pearson" in methods:
        out["pearson"]["true_score"] = true_score_ci(resp, y, np.random.default_rng(seed), n_boot, level)
    return out


def scatter_plot(human: Mapping, measure: Mapping, path, *, human_name: str = "human score",
                 measure_name: str = "measure", annotate: bool = True):
    """Scatter plot of the human score against the measure (matplotlib, Agg backend), saved to ``path``.

    The title gives Spearman's rho over the shared topics (left out when undefined).

    Parameters
    ----------
    human : mapping
        Topic -> human score (the y axis).
    measure : mapping
        Topic -> measure value (the x axis).
    path : str or os.PathLike
        The image file.
    human_name : str
        Label of the y axis.
    measure_name : str
        Label of the x axis.
    annotate : bool
        Label each point with its topic id (only up to 60 topics).

    Returns
    -------
    str or os.PathLike
        ``path``.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys, x, y = align(human, measure)
    fig, ax = plt.subplots(figsize=(5, 4))
    ax.scatter(y, x, s=18)
    if annotate and len(keys) <= 60:
        for k, xi, yi in zip(keys, x, y):
            ax.annotate(k, (yi, xi), fontsize=7, xytext=(2, 2), textcoords="offset points")
    ax.set_xlabel(measure_name)
    ax.set_ylabel(human_name)
    try:
        ax.set_title(f"Spearman rho = {spearman(x, y):.3f} over {len(keys)} topics", fontsize=9)
    except CorrelationError:
        pass
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def read_scores_meta(path) -> dict:
    """From the JSON of ``human score -o``: ``topic_key``, ``key_sep``, ``responses``, ``llm`` (else empty).

    Parameters
    ----------
    path : str or os.PathLike
        A scores file; one that is not ``.json`` gives empty ``responses``.

    Returns
    -------
    dict
        ``topic_key`` (list of str or None), ``key_sep`` (str or None), ``responses``
        (score -> topic -> per-response values) and ``llm`` (the language-model annotators behind
        the scores, :func:`~tealeaves.human.llm.meta.llm_fields`; empty without any).

    Raises
    ------
    CorrelationError
        When a ``.json`` file cannot be parsed, a per-response value is not a finite number, or
        its ``llm`` entry is not what ``human score`` writes.
    """
    import json

    from tealeaves._io import read_text

    if not str(path).lower().endswith(".json"):
        return {"responses": {}, "llm": {}}
    try:
        raw = json.loads(read_text(path, what="topic table", utf8_only=True),
                         parse_constant=lambda name: None)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested too deeply
        raise CorrelationError(f"cannot read {path}: {exc}") from None
    if not isinstance(raw, dict):
        return {"responses": {}, "llm": {}}
    responses = raw.get("responses") if isinstance(raw.get("responses"), dict) else {}
    clean = {}
    for name, table in responses.items():
        if isinstance(table, dict):
            clean[name] = {str(t): _response_values(path, name, t, vals)
                           for t, vals in table.items() if isinstance(vals, list)}
    key = raw.get("topic_key")
    return {"topic_key": key if isinstance(key, list) and all(isinstance(k, str) for k in key) else None,
            "key_sep": raw.get("key_sep") if isinstance(raw.get("key_sep"), str) else None,
            "responses": clean, "llm": _llm_entry(path, raw.get("llm"))}


def _llm_entry(path, llm) -> dict:
    """The ``llm`` entry of a scores file, checked (:func:`~tealeaves.human.llm.meta.signed_llm`)."""
    from tealeaves.errors import ParameterError

    try:
        return signed_llm(llm)
    except ParameterError:
        raise CorrelationError(f"{path}: its 'llm' entry is not what `tealeaves human score` writes "
                               f"(got {llm!r:.100})",
                               fix="score the study again with tealeaves human score -o (the file was "
                                   "edited or damaged)") from None


def _response_values(path, score: str, topic: str, values: list) -> list[float]:
    """A topic's per-response values of a scores file, each a finite number (``human score`` writes no
    other); a NaN, ``null`` or text is refused rather than dropped, so the bootstrap never runs on
    fewer responses than the file claims."""
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise CorrelationError(f"{path}: response {i} of topic {topic!r} of score {score!r} is "
                                   f"{'NaN' if v is None else repr(v)}, not a finite number",
                                   fix="score the study again with tealeaves human score -o (the file "
                                   "was edited or damaged)")
    return [float(v) for v in values]


def read_per_model(path, group, measure: str, sep: str = "/") -> dict[str, float]:
    """A per-model table (CSV/JSON records with the ``group`` column(s)): ``{model: value of measure}``.

    With several group columns (``dataset, model``) the model is their values joined by ``sep``.  The
    JSON of ``tealeaves report`` is read too: its ``models`` records, each model's id (``name``) in the
    column ``model``.

    Parameters
    ----------
    path : str or os.PathLike
        The table (read by :func:`~tealeaves.human.results.read_table`), or a report's JSON.
    group : str or sequence of str
        The column(s) naming the model.
    measure : str
        The column of values.
    sep : str
        Joins several group columns.

    Returns
    -------
    dict of str to float
        Model -> value; missing and non-finite values left out.

    Raises
    ------
    CorrelationError
        When a column is missing, a model id is empty, or a model is listed twice.
    """
    frame = _per_model_frame(path)
    cols = [group] if isinstance(group, str) else list(group)
    for col in (*cols, measure):
        if col not in frame.columns:
            raise CorrelationError(f"{path} has no column {col!r} "
                                   f"(found {list(map(str, frame.columns))[:10]})")
    names = [sep.join(_topic_id(v, path) for v in row) for row in frame[cols].itertuples(index=False)]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise CorrelationError(f"{path} lists {'/'.join(cols)} {dup[:5]} more than once")
    counts = {"missing": 0, "invalid": 0}
    return _numbers(dict(zip(names, frame[measure])), counts)


def _per_model_frame(path):
    """The records of a per-model table; for a report's JSON (an object with a ``models`` list), those
    models, each named in a ``model`` column (its ``name``)."""
    import json

    import pandas as pd

    from tealeaves._io import read_text
    from tealeaves.human.results import read_table

    if str(path).lower().endswith(".json"):
        try:
            raw = json.loads(read_text(path, what="per-model table", utf8_only=True),
                             parse_constant=lambda name: name)
        except (ValueError, RecursionError) as exc:
            raise CorrelationError(f"cannot read {path}: {exc}") from None
        if isinstance(raw, dict) and isinstance(raw.get("models"), list) and all(
                isinstance(m, dict) for m in raw["models"]):
            frame = pd.DataFrame.from_records(raw["models"])
            if "model" not in frame.columns and "name" in frame.columns:
                frame = frame.assign(model=frame["name"])
            return frame
    return read_table(path)


#: Columns of a topic table that describe a topic (its words, its model, the model's K and seed, its
#: flags) and are never read as a measure, even when their cells look like numbers.
DESCRIPTIVE_COLUMNS = ("words", "missing", "top_words", "model", "config", "run", "engine", "k", "seed",
                       "flags", "flag_explanations")


def topic_records(raw: object, path) -> list[dict] | dict:
    """The per-topic records of a JSON topic table, whichever tealeaves command wrote it.

    The one place that knows the JSON shapes :func:`read_topic_table` accepts:

    * a list of records with a ``topic`` key: returned as it is;
    * an object with a ``topics`` list of such records (``tealeaves human score``, ``tealeaves report
      --format json``, whose records also name their ``model``): that list;
    * the JSON of ``tealeaves coherence`` (an object with ``measure`` and a ``topics`` list of
      ``{"words", "score", ...}``): its rows by
      :func:`~tealeaves.coherence.measure.coherence_records`, the very table ``tealeaves coherence``
      writes as CSV (topic ``i`` is the ``i``-th topic, the score column is named after the measure);
    * an object ``{measure: {topic: value}}``: returned as it is (columns).

    Parameters
    ----------
    raw : object
        The decoded JSON.
    path : str or os.PathLike
        The file, for error messages.

    Returns
    -------
    list of dict or dict
        The records, or ``{measure: {topic: value}}``.

    Raises
    ------
    CorrelationError
        For any other shape, or a ``topics`` list that is empty (e.g. the report of a store that holds
        no model).
    """
    if isinstance(raw, dict) and isinstance(raw.get("topics"), list):
        topics = raw["topics"]
        if not topics:
            raise CorrelationError(f"{path} holds no topic (an empty 'topics' list)",
                                   fix="give the scores of at least two topics (a report of a store "
                                       "that holds scored models)")
        if isinstance(raw.get("measure"), str) and all(isinstance(t, dict) and "topic" not in t
                                                        and "score" in t for t in topics):
            from tealeaves.coherence.measure import coherence_records

            return coherence_records(raw)
        raw = topics
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, list) or not all(isinstance(r, dict) for r in raw):
        raise CorrelationError(f"{path} must hold records with a 'topic' key, a 'topics' list, the JSON of "
                               "`tealeaves coherence` or an object {measure: {topic: value}}")
    return raw


def read_topic_table(path, report: dict | None = None, *, key=None,
                     sep: str = "/") -> dict[str, dict[str, float]]:
    """Read per-topic values keyed by topic id: ``{column: {topic: value}}``.

    Accepted: a CSV/TSV with a ``topic`` column and one column per score or
    measure (``tealeaves coherence -o scores.csv`` writes one); a JSON list of
    records with a ``topic`` key; a JSON object with a ``topics`` list of such
    records (the output of ``tealeaves human score``, and ``tealeaves report
    --format json``); the JSON of ``tealeaves coherence`` (topic ids are the
    topics' positions, the score column is named after the measure); or a JSON
    object ``{name: {topic: value}}`` (see :func:`topic_records`).  Columns that
    describe a topic rather than score it (:data:`DESCRIPTIVE_COLUMNS`: words,
    model, K, seed, flags) are never read as measures.  Topic ids are
    read as text (``3`` and ``"3"`` are one topic).  A missing value (empty
    cell, ``null``, absent key) leaves the topic out of that column; a value
    that is not a finite number (``high``, ``NaN``, ``inf``, ``true``) too,
    and both are counted per column in ``report`` (``{column: {"missing": n,
    "invalid": n}}``) when a dict is passed.  With ``key`` (several column
    names, e.g. ``dataset, model, topic``) and a table that has all of them,
    the topic id is composed from those columns joined by ``sep``, as
    ``human import`` composes it.

    Parameters
    ----------
    path : str or os.PathLike
        The table (``.json``, else CSV/TSV).
    report : dict, optional
        Filled with the counts of missing and invalid values per column.
    key : sequence of str, optional
        Columns composing the topic id.
    sep : str
        Joins the ``key`` columns.

    Returns
    -------
    dict of str to dict of str to float
        Column -> topic -> value; columns with no number at all (labels, names) are left out.

    Raises
    ------
    CorrelationError
        When the file cannot be parsed, has no ``topic`` column, an empty topic id, or a topic
        listed twice.
    """
    import json

    import pandas as pd

    from tealeaves._io import read_text

    text = read_text(path, what="topic table", utf8_only=True)
    report = {} if report is None else report
    try:
        if str(path).lower().endswith(".json"):
            raw = topic_records(json.loads(text, parse_constant=lambda name: name), path)  # NaN: invalid
            if isinstance(raw, dict):
                return {str(name): _numbers(col, report.setdefault(str(name), {"missing": 0, "invalid": 0}))
                        for name, col in raw.items() if isinstance(col, dict)}
            frame = pd.DataFrame.from_records(raw)
            if not key and "model" in frame.columns and frame["model"].nunique() > 1:
                key = ("model", "topic")  # a store's topics: one id per model and topic
        else:
            frame = pd.read_csv(io.StringIO(text), sep=None, engine="python", dtype=str,
                                keep_default_na=False)
    except (ValueError, TypeError, RecursionError, csv.Error, pd.errors.ParserError,
            pd.errors.EmptyDataError) as exc:
        raise CorrelationError(f"cannot read {path}: {exc}") from None
    if key and len(key) > 1 and all(k in frame.columns for k in key):  # composite ids from the key columns
        parts = frame[list(key)].map(lambda v: "" if v is None else str(v).strip())
        frame = frame.drop(columns=list(key)).assign(topic=parts.agg(sep.join, axis=1))
    if "topic" not in frame.columns:
        raise CorrelationError(f"{path} needs a 'topic' column keyed by topic id "
                               f"(found {list(frame.columns)[:10]})")
    topics = [_topic_id(t, path) for t in frame["topic"]]
    dup = sorted({t for t in topics if topics.count(t) > 1})
    if dup:
        raise CorrelationError(f"{path} lists topic(s) {dup[:5]} more than once")
    out = {}
    for col in frame.columns:
        if col == "topic" or col in DESCRIPTIVE_COLUMNS:
            continue
        counts = {"missing": 0, "invalid": 0}
        values = _numbers(dict(zip(topics, frame[col])), counts)
        if values:  # a column with no number at all (labels, names) is not a score
            out[str(col)] = values
            report[str(col)] = counts
    return out


def _topic_id(value: object, path) -> str:
    """A topic id as text; whole-number floats (``3.0`` from a JSON number) read as ``3``."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = "" if value is None or isinstance(value, float) and value != value else str(value).strip()
    if not text or isinstance(value, (bool, dict, list)):
        raise CorrelationError(f"{path} has a topic id {value!r}",
                               fix="every row needs a topic id (a number or text)")
    return text


def _numbers(column: Mapping, counts: dict) -> dict[str, float]:
    """The finite numeric values of ``{topic: value}``; missing and invalid values counted in ``counts``."""
    out = {}
    for topic, value in column.items():
        if value is None or (isinstance(value, str) and not value.strip()):
            counts["missing"] += 1
            continue
        try:
            x = float(value) if not isinstance(value, (bool, dict, list)) else math.nan
        except ValueError:
            x = math.nan
        if math.isfinite(x):
            out[str(topic)] = x
        else:
            counts["invalid"] += 1
    return out
