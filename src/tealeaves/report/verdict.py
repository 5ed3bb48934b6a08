"""The report's verdict: "which K?" and "which model?" answered in a few sentences computed from a store.

The reasoning is that of the usual advice on choosing the number of topics: no single measure
settles K, so fit several, compare held-out prediction and coherence expecting them to disagree,
check which topics come back across random starts, read the topics, and let the purpose decide.
Each :class:`Sentence` states one of those findings from the store's numbers (means over the runs
of a configuration with a Student t interval, :func:`interval`), keeps the numbers it cites in
``numbers`` and names the chart that supports it in ``figure`` (an element id of the HTML report),
so the HTML page and ``report --format json`` carry the same verdict.

Nothing here is fixed text about an expected outcome: a sweep whose coherence rises with K gets a
sentence saying so.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from tealeaves._docs import shared_doc
from tealeaves.report import hooks

#: The interval level of the means over runs.
LEVEL = 0.95

#: Figure ids of the HTML report that the sentences link to.
FIGURES = {"heldout": "fig-perplexity-vs-k", "library": "fig-perplexity-vs-k",
           "coherence": "fig-measures-vs-k", "stability": "fig-stability-vs-k", "junk": "topics",
           "disagreement": "fig-measures-vs-k",
           "purpose": "explorer", "unavailable": "settings"}


@dataclass
class Sentence:
    """One finding of the verdict.

    Parameters
    ----------
    kind : str
        ``heldout``, ``coherence``, ``library``, ``stability``, ``junk``, ``disagreement``,
        ``purpose`` or ``unavailable``.
    text : str
        The sentence.
    figure : str
        The id of the report element (chart or table) that supports it.
    numbers : dict
        The numbers it cites, by configuration: ``mean``, ``low``, ``high``, ``n`` (or the
        measure's own fields).
    """

    kind: str
    text: str
    figure: str
    numbers: dict = field(default_factory=dict)


@dataclass
class Verdict:
    """The answers to "which K?" and "which model?".

    Parameters
    ----------
    questions : dict
        ``{question: [Sentence, ...]}`` in reading order.
    level : float
        The level of every interval.
    """

    questions: dict
    level: float = LEVEL

    def to_dict(self) -> dict:
        """The verdict, JSON-ready.

        Returns
        -------
        dict
            ``level`` and ``questions`` (each a list of sentence dicts).
        """
        return {"level": self.level,
                "questions": {q: [asdict(s) for s in sents] for q, sents in self.questions.items()}}


def interval(values, level: float = LEVEL) -> dict:
    """Mean of ``values`` with its Student t interval (``mean +- t_{(1+level)/2, n-1} * sd / sqrt(n)``).

    Parameters
    ----------
    values : array_like
        The finite values of the runs (missing ones are dropped).
    level : float, default 0.95
        The interval level.

    Returns
    -------
    dict
        ``mean``, ``low``, ``high`` and ``n``; with one value ``low`` and ``high`` are ``None``
        (no interval from one run); with none, ``mean`` is ``None`` too.
    """
    from scipy.stats import t

    x = np.asarray([v for v in values if v is not None and np.isfinite(v)], dtype=float)
    if x.size == 0:
        return {"mean": None, "low": None, "high": None, "n": 0}
    mean = float(x.mean())
    if x.size == 1:
        return {"mean": mean, "low": None, "high": None, "n": 1}
    half = float(t.ppf((1 + level) / 2, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size))
    return {"mean": mean, "low": mean - half, "high": mean + half, "n": int(x.size)}


def _fmt(value: float, digits: int) -> str:
    return f"{value:,.{digits}f}"


def _cite(stats: dict, digits: int) -> str:
    """``1,234 [1,200, 1,268]`` (the mean and its interval), or the mean alone for one run."""
    text = _fmt(stats["mean"], digits)
    if stats["low"] is not None:
        text += f" [{_fmt(stats['low'], digits)}, {_fmt(stats['high'], digits)}]"
    return text


def _and(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _table(results, column: str, level: float) -> pd.DataFrame:
    """Per configuration: engine, K, and the interval of ``column`` over its runs (missing: mean None)."""
    models = results.models.assign(_config=hooks.configs(results))
    rows = []
    for config, group in models.groupby("_config", sort=False):
        values = group[column].tolist() if column in group else []
        values = [float(v) for v in values if v is not None and not pd.isna(v)]
        rows.append({"config": str(config), "engine": str(group["engine"].iloc[0]),
                     "k": int(group["k"].iloc[0]), **interval(values, level)})
    table = pd.DataFrame(rows).sort_values(["engine", "k", "config"]).reset_index(drop=True)
    # keep None (no interval from one run, no value) as None: pandas would turn it into NaN
    for column in ("mean", "low", "high") if rows else ():
        table[column] = table[column].astype(object).where(table[column].notna(), None)
    return table


def _series(table: pd.DataFrame, digits: int, label) -> str:
    return "; ".join(f"{label(r)}: {_cite(r, digits)}" for r in table.to_dict(orient="records"))


def _trend(means: list[float]) -> str | None:
    diffs = np.diff(means)
    if len(diffs) == 0:
        return None
    if np.all(diffs < 0):
        return "falls"
    if np.all(diffs > 0):
        return "rises"
    return None


def _numbers(table: pd.DataFrame) -> dict:
    return {r["config"]: {"k": r["k"], "mean": r["mean"], "low": r["low"], "high": r["high"], "n": r["n"]}
            for r in table.to_dict(orient="records")}


def _runs_note(table: pd.DataFrame, level: float) -> str:
    ns = sorted(set(int(n) for n in table["n"]))
    if ns == [1]:
        return "one run each, so no interval"
    runs = f"{ns[0]}" if len(ns) == 1 else f"{ns[0]} to {ns[-1]}"
    return f"mean over {runs} runs with its {level:.0%} t interval"


def _k_label(row) -> str:
    return f"K={row['k']}"


def _heldout(results, ks: pd.DataFrame, level: float, label=_k_label) -> tuple[Sentence | None, dict]:
    """The held-out prediction sentence and the configuration it favours."""
    table = ks[ks["mean"].notna()]
    if table.empty:
        return None, {}
    best = table.loc[table["mean"].idxmin()]
    trend = _trend(table["mean"].tolist())
    if label is _k_label and trend == "falls":
        head = "improves (falls) at every K tried"
        tail = f"; by this measure alone the largest K, {best['k']}, is best"
    elif label is _k_label and trend == "rises":
        head = "worsens (rises) at every K tried"
        tail = f"; by this measure alone the smallest K, {best['k']}, is best"
    else:
        head = f"is lowest (best) for {label(best)}"
        tail = ""
    text = (f"Held-out prediction: document-completion perplexity (lower is better) {head}: "
            f"{_series(table, 0, label)} ({_runs_note(table, level)}){tail}.")
    numbers = _numbers(table)
    base = results.models.get("unigram_perplexity")
    if base is not None and base.notna().any():
        unigram = float(base.dropna().mean())
        beaten = int((table["mean"] < unigram).sum())
        text += (f" {beaten} of {len(table)} beat the unigram baseline ({_fmt(unigram, 0)}), "
                 "the score of a model that knows only word frequencies.")
        numbers["unigram_baseline"] = unigram
    return Sentence("heldout", text, FIGURES["heldout"], numbers), {"held-out prediction": best}


def _coherence(ks: pd.DataFrame, measure: str, level: float, label=_k_label) -> tuple[Sentence | None, dict]:
    """The coherence sentence: where the mean peaks, and which other candidates its interval overlaps."""
    table = ks[ks["mean"].notna()].reset_index(drop=True)
    if table.empty:
        return None, {}
    i = int(table["mean"].idxmax())
    peak = table.loc[i]
    if label is _k_label and len(table) > 2:
        where = ("at the smallest K tried" if i == 0 else "at the largest K tried" if i == len(table) - 1
                 else "at a middle K and is lower on both sides")
    else:
        where = ""
    text = (f"Coherence: mean {measure} over topics (higher is better) peaks at {label(peak)}, "
            f"{_cite(peak, 3)}{', ' + where if where else ''}: {_series(table, 3, label)} "
            f"({_runs_note(table, level)}).")
    if peak["low"] is not None:
        close = [label(r) for r in table.to_dict(orient="records")
                 if r["config"] != peak["config"] and r["high"] is not None and r["high"] >= peak["low"]]
        if close:
            text += (f" The peak's interval overlaps that of {_and(close)}, so the runs do not separate "
                     "them.")
        else:
            text += " No other interval reaches the peak's."
    numbers = {"measure": measure, **_numbers(table)}
    return Sentence("coherence", text, FIGURES["coherence"], numbers), {f"coherence ({measure})": peak}


def _library(ks: pd.DataFrame, heldout: dict, level: float) -> tuple[Sentence | None, dict]:
    """The sentence on the fitting library's own perplexity (scikit-learn's variational bound)."""
    table = ks[ks["mean"].notna()]
    if len(table) < 2 or not heldout:
        return None, {}
    best = table.loc[table["mean"].idxmin()]
    held = heldout["held-out prediction"]
    trend = _trend(table["mean"].tolist())
    moves = {"rises": "rises at every K tried", "falls": "falls at every K tried"}.get(
        trend, f"is lowest at K={best['k']}")
    way = ("points the other way from document completion" if best["k"] != held["k"]
           else "agrees with document completion on the best K")
    text = (f"The library's own perplexity (the variational bound that scikit-learn reports, on another "
            f"scale) {moves}: {_series(table, 0, _k_label)} ({_runs_note(table, level)}); it {way}: read "
            f"literally it favours K={best['k']}, where held-out prediction favours K={held['k']}.")
    return Sentence("library", text, FIGURES["library"], _numbers(table)), {"the library's bound": best}


def _stability(table: pd.DataFrame | None, configs: list[str], label) -> tuple[Sentence | None, dict]:
    """The stability sentence: mean matched similarity of the run pairs (range over the pairs)."""
    if table is None:
        return None, {}
    table = table[table["config"].isin(configs)].reset_index(drop=True)
    if table.empty:
        return None, {}
    best = table.loc[table["mean_similarity"].idxmax()]
    parts = "; ".join(f"{label(r)}: {r['mean_similarity']:.2f} (pairs {r['low']:.2f}-{r['high']:.2f}, "
                      f"{r['n_runs']} runs)" for r in table.to_dict(orient="records"))
    worst = table.loc[table["mean_similarity"].idxmin()]
    text = (f"Stability: topics come back across random starts most for {label(best)} and least for "
            f"{label(worst)} (mean similarity of matched topics between two runs, 1 = identical): {parts}.")
    numbers = {r["config"]: {"k": int(r["k"]), "mean": float(r["mean_similarity"]), "low": float(r["low"]),
                             "high": float(r["high"]), "n": int(r["n_runs"])}
               for r in table.to_dict(orient="records")}
    return Sentence("stability", text, FIGURES["stability"], numbers), {"stability": best}


@shared_doc
def junk_counts(results) -> pd.DataFrame:
    """Per configuration: flagged topics per run (mean) and their share of the topics.

    Parameters: %(report_results)s

    Returns
    -------
    pandas.DataFrame
        Columns ``config``, ``engine``, ``k``, ``n_runs``, ``topics``, ``flagged``,
        ``per_run`` and ``share``; one row per configuration.
    """
    flags = hooks.topic_flag_details(results)
    models = results.models.assign(_config=hooks.configs(results))
    rows = []
    for config, group in models.groupby("_config", sort=False):
        topics = int(group["k"].sum())
        flagged = sum(1 for (m, _t) in flags if m in set(group["name"]))
        rows.append({"config": str(config), "engine": str(group["engine"].iloc[0]),
                     "k": int(group["k"].iloc[0]),
                     "n_runs": len(group), "topics": topics, "flagged": flagged,
                     "per_run": flagged / len(group), "share": flagged / topics if topics else 0.0})
    return pd.DataFrame(rows).sort_values(["engine", "k", "config"]).reset_index(drop=True)


def _junk(counts: pd.DataFrame, configs: list[str], label) -> tuple[Sentence | None, dict]:
    table = counts[counts["config"].isin(configs)].reset_index(drop=True)
    if table.empty:
        return None, {}
    parts = "; ".join(f"{label(r)}: {r['per_run']:.1f} of {r['k']} per run ({r['share']:.0%})"
                      for r in table.to_dict(orient="records"))
    best = table.loc[table["share"].idxmin()]
    text = (f"Junk topics: topics flagged by at least one junk-topic check (see each flag's explanation in "
            f"the topic table): {parts}.")
    numbers = {r["config"]: {"k": r["k"], "flagged": r["flagged"], "topics": r["topics"], "share": r["share"],
                             "per_run": r["per_run"]} for r in table.to_dict(orient="records")}
    return Sentence("junk", text, FIGURES["junk"], numbers), {"the junk-topic share": best}


def _disagreement(favoured: dict, label) -> list[Sentence]:
    """Which candidate each measure favours, whether they agree, and what to do next."""
    if not favoured:
        return []
    picks = {name: label(row) for name, row in favoured.items()}
    listing = "; ".join(f"{name} favours {pick}" for name, pick in picks.items())
    numbers = {name: str(row["config"]) for name, row in favoured.items()}
    if len(set(picks.values())) == 1:
        text = f"The measures agree: {listing}."
    else:
        text = (f"The measures disagree, as they often do: {listing}. No candidate is best on every "
                "measure, so none is the answer on the numbers alone.")
    out = [Sentence("disagreement", text, FIGURES["disagreement"], numbers)]
    out.append(Sentence(
        "purpose", "Read the topics of the candidates these measures point to in the topic explorer, drop "
        "those whose topics are flagged or do not recur, and let the purpose decide: browsing a collection "
        "calls for a few broad topics, a fine-grained analysis for many narrow ones.", FIGURES["purpose"],
        {"candidates": sorted(set(numbers.values()))}))
    return out


def _unavailable(results, column: str, configs: list[str]) -> Sentence | None:
    """A sentence naming the configurations whose ``column`` is missing, with the store's reasons."""
    models = results.models.assign(_config=hooks.configs(results))
    models = models[models["_config"].isin(configs)]
    if column not in models:
        return None
    missing = models[models[column].isna()]
    if missing.empty:
        return None
    reasons = {}
    for _, row in missing.iterrows():
        why = row.get("unavailable")
        why = why.get(column.replace("_perplexity", ""), why.get(column)) if isinstance(why, dict) else None
        reasons.setdefault(row["_config"], why or "no reason recorded")
    text = (f"{column.replace('_', ' ')} is not available for "
            + "; ".join(f"{c} ({r})" for c, r in reasons.items()) + ".")
    return Sentence("unavailable", text, FIGURES["unavailable"], {"configs": reasons})


def _answer(results, configs: list[str], measure: str | None, level: float, label,
            stability: pd.DataFrame | None, counts: pd.DataFrame) -> list[Sentence]:
    sentences, favoured = [], {}

    def subset(column):
        table = _table(results, column, level)
        return table[table["config"].isin(configs)].reset_index(drop=True)

    held, pick = _heldout(results, subset("completion_perplexity"), level, label)
    sentences.append(held)
    favoured.update(pick)
    if measure is not None:
        coh, pick = _coherence(subset(measure), measure, level, label)
        sentences.append(coh)
        favoured.update(pick)
    if label is _k_label and "library_perplexity" in results.models:
        lib, pick = _library(subset("library_perplexity"), favoured, level)
        sentences.append(lib)
        favoured.update(pick)
    stab, pick = _stability(stability, configs, label)
    sentences.append(stab)
    favoured.update(pick)
    junk, pick = _junk(counts, configs, label)
    sentences.append(junk)
    favoured.update(pick)
    sentences.append(_unavailable(results, "completion_perplexity", configs))
    sentences += _disagreement(favoured, label)
    return [s for s in sentences if s is not None]


@shared_doc
def verdict(results, measure: str | None = None, level: float = LEVEL) -> Verdict:
    """The verdict on "which K?" (per engine with several K) and "which model?" (across configurations).

    Parameters
    ----------
    %(report_results)s
    measure : str or None, default None
        The coherence measure (None: the first stored).
    level : float, default 0.95
        The level of the intervals over runs.

    Returns
    -------
    Verdict
        The sentences, each with the numbers it cites and the chart it rests on.
    """
    from tealeaves.report.figures import coherence_measures

    measures = coherence_measures(results)
    measure = measure if measure is not None else (measures[0] if measures else None)
    stability = hooks.STABILITY(results) if hooks.STABILITY is not None else None
    counts = junk_counts(results)
    models = results.models.assign(_config=hooks.configs(results))
    questions: dict = {}
    engines = sorted(set(models["engine"]))
    for engine in engines:
        group = models[models["engine"] == engine]
        if group["k"].nunique() < 2:
            continue
        configs = sorted(set(group["_config"]))
        head = "Which K?" if len(engines) == 1 else f"Which K? ({engine})"
        questions[head] = _answer(results, configs, measure, level, _k_label, stability, counts)
    configs = sorted(set(models["_config"]))
    if len(configs) > 1:
        if set(configs) == set((models["engine"] + "-K" + models["k"].astype(str)).unique()) \
                and len(engines) == 1:
            questions["Which model?"] = [Sentence(
                "purpose", f"Every model comes from one engine ({engines[0]}) and the configurations differ "
                "only in K, so choosing a model is choosing K (above).", FIGURES["purpose"], {})]
        else:
            questions["Which model?"] = _answer(results, configs, measure, level, lambda r: str(r["config"]),
                                                stability, counts)
    if not questions:
        questions["Which model?"] = [Sentence(
            "purpose", f"The store holds one configuration ({configs[0]}), so there is nothing to choose "
            "between here: fit other K or models to compare, and read its topics in the explorer.",
            FIGURES["purpose"],
            {"configs": configs})]
    return Verdict(questions, level)
