"""Scores from human judgments (Chang et al. 2009 eqs. 1-2; Lau et al. 2014; Hao et al. 2018).

* Model precision of topic k: ``MP_k = (1/S) sum_s 1(i_s = omega_k)``, the
  share of annotators who chose the true intruder.
* Topic log odds of document d: ``TLO_d = (1/S) sum_s (log theta_{d,j*} -
  log theta_{d,j_s})``; 0 when everyone finds the intruding topic ``j*``,
  negative otherwise.
* Mean rating of topic k: the mean of its 2 / 1 / 0 ratings (and likewise
  for the multilingual rating).

Annotators are screened first with the check items: one whose share of
correct check answers is below ``min_check_accuracy`` is excluded from every
score, and reported.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from tealeaves._docs import shared_doc
from tealeaves.errors import EmptyInputError
from tealeaves.human import items as it
from tealeaves.human.agreement import AgreementUndefinedError, krippendorff_alpha, split_half_reliability
from tealeaves.human.llm.meta import llm_fields
from tealeaves.human.params import MIN_CHECK_ACCURACY, MIN_CONFIDENCE, SCORE_SEED
from tealeaves.human.results import JudgmentResults
from tealeaves.human.study import Study
from tealeaves.signature import Signature
from tealeaves.validation import check_int


@shared_doc
def model_precision(choices: Sequence[str], intruder: str) -> float:
    """Chang et al. (2009) eq. 1: the fraction of choices equal to the intruder.

    ``MP_k = (1/S) sum_s 1(i_s = omega_k)`` over the ``S`` choices of one word-intrusion item.

    Parameters
    ----------
    choices : sequence of str
        The word each annotator chose as the intruder.
    intruder : str
        The true intruder of the item.

    Returns
    -------
    float
        Model precision, between 0 and 1.

    Raises: %(raises_no_choices)s

    Examples
    --------
    >>> model_precision(["oil", "oil", "cat", "oil"], "oil")
    0.75
    """
    if not choices:
        raise EmptyInputError("model precision needs at least one judgment")
    return sum(c == intruder for c in choices) / len(choices)


@shared_doc
def topic_log_odds(theta: dict, intruder: str, choices: Sequence[str]) -> float:
    """Chang et al. (2009) eq. 2: mean of ``log theta[intruder] - log theta[chosen]``.

    ``TLO_d = (1/S) sum_s (log theta_{d,j*} - log theta_{d,j_s})``: 0 when every annotator
    finds the intruding topic ``j*``, negative otherwise.

    Parameters
    ----------
    theta : dict
        The document's topic proportions of the topics shown, keyed as the choices are.
    intruder : str
        The intruding topic.
    choices : sequence of str
        The topic each annotator chose as the intruder.

    Returns
    -------
    float
        Topic log odds, at most 0.

    Raises: %(raises_no_choices)s

    Examples
    --------
    >>> round(topic_log_odds({"0": 0.5, "3": 0.1, "7": 0.01}, "7", ["7", "3"]), 4)
    -1.1513
    """
    if not choices:
        raise EmptyInputError("topic log odds need at least one judgment")
    return float(np.mean([math.log(theta[intruder]) - math.log(theta[c]) for c in choices]))


def topic_order(topic: str) -> tuple:
    """Sort key of topic ids (strings): whole numbers first, numerically, then other ids as text.

    Parameters
    ----------
    topic : str
        A topic id (any value; it is read as text).

    Returns
    -------
    tuple
        ``(0, number, "")`` for a whole number, ``(1, 0, text)`` for anything else.
    """
    text = str(topic)
    return (0, int(text), "") if text.lstrip("-").isdigit() else (1, 0, text)


def screen_annotators(results: JudgmentResults, study: Study, min_check_accuracy: float = 1.0) -> dict:
    """Check-item accuracy per annotator, those excluded, and what the threshold removes.

    Reports how many check items exist, how many annotators saw one
    (``n_checked``), how many pass (``n_passing``), and the judgments the
    exclusion removes (``judgments_removed``, check items included).

    Parameters
    ----------
    results : JudgmentResults
        The judgments.
    study : Study
        The study they answer; its items with ``check`` set are the check items (their
        ``expected`` answers, else their ``answer``).
    min_check_accuracy : float
        Annotators whose share of correct check answers is below it are excluded.

    Returns
    -------
    dict
        ``min_check_accuracy``, ``n_check_items``, ``n_checked``, ``n_passing``,
        ``per_annotator`` (``passed``, ``total``, ``accuracy``), ``excluded`` and ``unchecked``
        (annotators who saw no check item, sorted) and ``judgments_removed``.
    """
    frame = results.frame
    checks = {i["id"]: set(i.get("expected") or [i.get("answer")]) for i in study.items if i.get("check")}
    per = {}
    for name, group in frame[frame["item_id"].isin(checks)].groupby("annotator"):
        ok = [r in checks[i] for i, r in zip(group["item_id"], group["response"])]
        per[name] = {"passed": int(sum(ok)), "total": len(ok), "accuracy": sum(ok) / len(ok)}
    excluded = sorted(a for a, v in per.items() if v["accuracy"] < min_check_accuracy)
    unchecked = sorted(set(frame["annotator"]) - set(per))
    return {"min_check_accuracy": min_check_accuracy, "n_check_items": len(checks), "n_checked": len(per),
            "n_passing": len(per) - len(excluded), "per_annotator": per, "excluded": excluded,
            "unchecked": unchecked, "judgments_removed": int(frame["annotator"].isin(excluded).sum())}


def apply_filters(frame: pd.DataFrame, *, min_confidence: float | None = None,
                  exclude_annotators=None) -> tuple[pd.DataFrame, dict]:
    """Judgments kept by the confidence threshold and the annotator exclusions, with every removal counted.

    Parameters
    ----------
    frame : pandas.DataFrame
        Judgments in the long format (``annotator``, and ``confidence`` with ``min_confidence``).
    min_confidence : float, optional
        Judgments with a confidence (or familiarity) below it are removed (``low_confidence``),
        and so are those without one (``no_confidence``), since they cannot be shown to pass.
    exclude_annotators : collection of str, optional
        Every judgment of these annotators is removed (``by_annotator``).

    Returns
    -------
    tuple
        The judgments kept, and the report of the filters (``removed`` counts by reason).

    Raises
    ------
    ParameterError
        When ``min_confidence`` is given and ``frame`` has no ``confidence`` column.
    """
    report: dict = {"min_confidence": min_confidence, "exclude_annotators": sorted(exclude_annotators or []),
                    "removed": {"low_confidence": 0, "no_confidence": 0, "by_annotator": 0}}
    if exclude_annotators:
        drop = frame["annotator"].isin(set(exclude_annotators))
        report["removed"]["by_annotator"] = int(drop.sum())
        frame = frame[~drop]
    if min_confidence is not None:
        if "confidence" not in frame.columns:
            from tealeaves._params import naming
            from tealeaves.errors import ParameterError

            raise naming(ParameterError("min_confidence needs a confidence column in the results",
                                        fix="map it with `columns='confidence=COL'`, or drop "
                                            "`min_confidence`"),
                         "min_confidence", "columns")
        conf = frame["confidence"]
        report["removed"]["no_confidence"] = int(conf.isna().sum())
        report["removed"]["low_confidence"] = int((conf < min_confidence).sum())
        frame = frame[conf >= min_confidence]
    return frame, report


def _task_rows(frame: pd.DataFrame, study: Study, task: str) -> pd.DataFrame:
    ids = [i["id"] for i in study.items if i["task"] == task and not i.get("check")]
    return frame[frame["item_id"].isin(ids)]


def _item_score(item: dict, choices: Sequence[str]) -> float:
    """Model precision (word intrusion) or topic log odds (topic intrusion) of one item."""
    if item["task"] == it.WORD_INTRUSION:
        return model_precision(choices, item["answer"])
    return topic_log_odds(item["theta"], item["answer"], choices)


#: What each intrusion quantity needs from the study, and why it may be missing.
NEEDS = {it.WORD_INTRUSION: ("model_precision", "the intruder (answer) of the item, or judgments imported as "
                             "correct/incorrect (imported with kind 'correct')"),
         it.TOPIC_INTRUSION: ("topic_log_odds", "the intruder (answer) and the document's topic proportions "
                              "(theta) of the topics shown")}


def _scorable(item: dict) -> bool:
    if item.get("answer") is None:
        return False
    return item["task"] != it.TOPIC_INTRUSION or isinstance(item.get("theta"), dict)


def _intrusion(frame, study, task, seed, n_splits):
    """Per-item intrusion scores keyed by topic (word) or document (topic), per-response values,
    split-half reliability, and the items that cannot be scored (:data:`NEEDS`)."""
    rows = _task_rows(frame, study, task)
    out, units, values, skipped = {}, [], {}, []
    for item_id, group in rows.groupby("item_id", sort=False):
        item = study.by_id[item_id]
        choices = list(group["response"])
        if not _scorable(item):
            skipped.append(item_id)
            continue
        unit = [_item_score(item, [c]) for c in choices]
        key = str(item["topic"]) if task == it.WORD_INTRUSION else item["document"]
        if task == it.WORD_INTRUSION:
            out[key] = {"model_precision": _item_score(item, choices), "n_word_intrusion": len(choices)}
        else:
            out[key] = {"topic_log_odds": _item_score(item, choices), "n": len(choices)}
        values[key] = unit
        units.append(unit)
    quantity, need = NEEDS[task]
    missing = {"quantity": quantity, "task": task, "n_items": len(skipped), "items": skipped[:5],
               "needs": need} if skipped else None
    return out, values, _reliability(units, seed, n_splits), missing


def _ratings(frame, study, task, key):
    rows = _task_rows(frame, study, task)
    out, values, scale = {}, {}, set()
    for item_id, group in rows.groupby("item_id", sort=False):
        v = group["response"].astype(float).to_numpy()
        topic = str(study.by_id[item_id]["topic"])
        out[topic] = {key: float(v.mean()), f"n_{key}": int(v.size)}
        values[topic] = v.tolist()
        scale.update(float(o) for o in study.by_id[item_id]["options"])
    agreement = None
    if not rows.empty:
        table = rows.pivot(index="annotator", columns="item_id", values="response").astype(float)
        try:
            agreement = {"krippendorff_alpha_ordinal": krippendorff_alpha(table.to_numpy(), "ordinal"),
                         "krippendorff_alpha_interval": krippendorff_alpha(table.to_numpy(), "interval")}
        except AgreementUndefinedError as exc:
            agreement = {"undefined": str(exc)}
    return out, values, agreement, sorted(scale)


def _reliability(units, seed, n_splits):
    if not units:
        return None
    try:
        return split_half_reliability(units, n_splits=n_splits, seed=seed)
    except AgreementUndefinedError as exc:
        return {"undefined": str(exc)}


def score(results: JudgmentResults, study: Study, *, min_check_accuracy: float = 1.0, seed: int = 0,
          n_splits: int = 200, min_confidence: float | None = None, exclude_annotators=None,
          lenient: bool = False) -> dict:
    """All scores of a study: per topic, per document, agreement, screening, filters and import report.

    Model precision (Chang et al. 2009 eq. 1, :func:`model_precision`) per topic, topic log
    odds (eq. 2, :func:`topic_log_odds`) per document, mean ratings (Lau et al. 2014;
    Hao et al. 2018) per topic, split-half reliability of the intrusion scores
    (:func:`~tealeaves.human.agreement.split_half_reliability`) and Krippendorff's alpha of
    the ratings (:func:`~tealeaves.human.agreement.krippendorff_alpha`, ordinal and interval).
    ``responses`` holds each score's per-response values per topic (for the
    annotator-level bootstrap of ``human correlate``); ``unavailable`` lists
    the quantities the study cannot give and what they need; ``rating_scale``
    the scale each rating task was scored on.

    Parameters
    ----------
    results : JudgmentResults
        The judgments (:func:`~tealeaves.human.results.read_results`).
    study : Study
        The study they answer.
    min_check_accuracy : float
        Annotators below this share of correct check answers (0-1) are excluded.
    seed : int
        Seed of the split-half reliability.
    n_splits : int
        Random splits of the split-half reliability.
    min_confidence : float, optional
        Drop judgments whose confidence is below this, and those without one
        (:func:`apply_filters`).
    exclude_annotators : collection of str, optional
        Annotators whose judgments are dropped.
    lenient : bool
        Ratings that are numbers outside the study's scale (``3`` on a 0-2 study: the data use
        another scale, and scoring them on this one would misread the rest) are an error unless
        ``lenient`` (then they are counted, as ``import.outside_scale``).

    Returns
    -------
    dict
        The report printed by ``tealeaves human score --format json`` (``docs/human.md``).

    Raises
    ------
    ResultsError
        When ratings lie outside the study's scale and ``lenient`` is false.
    ParameterError
        When a setting is out of range, or ``min_confidence`` is given without a confidence column.
    EmptyInputError
        When no judgment is left after the filters and the screening.
    """
    outside = results.report.get("outside_scale")
    if outside and not lenient:
        from tealeaves._params import naming
        from tealeaves.human.results import ResultsError

        raise naming(ResultsError(f"{outside['n']} rating(s) are numbers outside the study's scale "
                           f"{outside['scales'][0]} (e.g. {outside['values'][:3]}): the judgments use "
                           "another scale, and the rest would be misread on this one",
                           fix=("import them again with the scale they use declared (scale or scale map)",
                                "pass `lenient` to drop and count them")), "lenient")
    min_check_accuracy = MIN_CHECK_ACCURACY.check(min_check_accuracy)
    seed = SCORE_SEED.check(seed)
    n_splits = check_int(n_splits, "n_splits", min_value=1)
    if min_confidence is not None:
        min_confidence = MIN_CONFIDENCE.check(min_confidence)
    frame, filters = apply_filters(results.frame, min_confidence=min_confidence,
                                   exclude_annotators=exclude_annotators)
    screening = screen_annotators(JudgmentResults(frame, results.report), study, min_check_accuracy)
    frame = frame[~frame["annotator"].isin(screening["excluded"])]
    if frame.empty:
        removed = {k: v for k, v in filters["removed"].items() if v}
        from tealeaves._params import naming

        what = (f"no judgments left to score: every annotator failed the check items "
                f"({screening['excluded']}) or was filtered out {removed or ''}").rstrip()
        raise naming(EmptyInputError(what, fix="lower `min_check_accuracy` or `min_confidence` to inspect "
                                               "them"),
                     "min_check_accuracy", "min_confidence")
    topics: dict[str, dict] = {}
    wi, wi_values, wi_rel, wi_missing = _intrusion(frame, study, it.WORD_INTRUSION, seed, n_splits)
    r, r_values, r_agree, r_scale = _ratings(frame, study, it.RATING, "mean_rating")
    ml, ml_values, ml_agree, ml_scale = _ratings(frame, study, it.MULTILINGUAL_RATING,
                                                 "mean_multilingual_rating")
    for part in (wi, r, ml):
        for k, v in part.items():
            topics.setdefault(k, {"topic": k}).update(v)
    docs, ti_values, ti_rel, ti_missing = _intrusion(frame, study, it.TOPIC_INTRUSION, seed, n_splits)
    fields = {"study": study.fingerprint, "checks": min_check_accuracy, "seed": seed, "splits": n_splits}
    if min_confidence is not None:
        fields["min_conf"] = min_confidence
    llm = llm_fields(frame["annotator"], results.annotator_meta)
    fields.update(llm)
    settings = study.settings
    return {"signature": str(Signature("human", fields)), "study": study.name,
            "n_annotators": int(frame["annotator"].nunique()), "n_judgments": int(len(frame)),
            "topics": sorted(topics.values(), key=lambda t: topic_order(t["topic"])),
            "documents": [{"document": d, **v} for d, v in docs.items()],
            "agreement": {"word_intrusion_split_half": wi_rel, "topic_intrusion_split_half": ti_rel,
                          "rating": r_agree, "multilingual_rating": ml_agree},
            "rating_scale": {k: v for k, v in (("rating", r_scale), ("multilingual_rating", ml_scale)) if v},
            "unavailable": [m for m in (wi_missing, ti_missing) if m],
            "topic_key": settings.get("topic_key"), "key_sep": settings.get("key_sep"),
            "responses": {"model_precision": wi_values, "mean_rating": r_values,
                          "mean_multilingual_rating": ml_values, "topic_log_odds": ti_values},
            "screening": screening, "filters": filters, "import": results.report, "llm": llm}
