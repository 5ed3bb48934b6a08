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

from tealeaves.errors import EmptyInputError
from tealeaves.human import items as it
from tealeaves.human.agreement import AgreementUndefined, krippendorff_alpha, split_half_reliability
from tealeaves.human.results import Results
from tealeaves.human.study import Study
from tealeaves.signature import Signature
from tealeaves.validation import check_float, check_int, check_seed


def model_precision(choices: Sequence[str], intruder: str) -> float:
    """Chang et al. (2009) eq. 1: the fraction of choices equal to the intruder."""
    if not choices:
        raise EmptyInputError("model precision needs at least one judgment")
    return sum(c == intruder for c in choices) / len(choices)


def topic_log_odds(theta: dict, intruder: str, choices: Sequence[str]) -> float:
    """Chang et al. (2009) eq. 2: mean of ``log theta[intruder] - log theta[chosen]``."""
    if not choices:
        raise EmptyInputError("topic log odds need at least one judgment")
    return float(np.mean([math.log(theta[intruder]) - math.log(theta[c]) for c in choices]))


def topic_order(topic: str) -> tuple:
    """Sort key of topic ids (strings): whole numbers first, numerically, then other ids as text."""
    text = str(topic)
    return (0, int(text), "") if text.lstrip("-").isdigit() else (1, 0, text)


def screen_annotators(results: Results, study: Study, min_check_accuracy: float = 1.0) -> dict:
    """Check-item accuracy per annotator and the list of those excluded."""
    frame = results.frame
    checks = {i["id"]: set(i.get("expected") or [i.get("answer")]) for i in study.items if i.get("check")}
    per = {}
    for name, group in frame[frame["item_id"].isin(checks)].groupby("annotator"):
        ok = [r in checks[i] for i, r in zip(group["item_id"], group["response"])]
        per[name] = {"passed": int(sum(ok)), "total": len(ok), "accuracy": sum(ok) / len(ok)}
    excluded = sorted(a for a, v in per.items() if v["accuracy"] < min_check_accuracy)
    unchecked = sorted(set(frame["annotator"]) - set(per))
    return {"min_check_accuracy": min_check_accuracy, "n_check_items": len(checks), "per_annotator": per,
            "excluded": excluded, "unchecked": unchecked}


def _task_rows(frame: pd.DataFrame, study: Study, task: str) -> pd.DataFrame:
    ids = [i["id"] for i in study.items if i["task"] == task and not i.get("check")]
    return frame[frame["item_id"].isin(ids)]


def _item_score(item: dict, choices: Sequence[str]) -> float:
    """Model precision (word intrusion) or topic log odds (topic intrusion) of one item."""
    if item["task"] == it.WORD_INTRUSION:
        return model_precision(choices, item["answer"])
    return topic_log_odds(item["theta"], item["answer"], choices)


def _intrusion(frame, study, task, seed, n_splits):
    """Per-item intrusion scores keyed by topic (word) or document (topic), and split-half reliability."""
    rows = _task_rows(frame, study, task)
    out, units = {}, []
    for item_id, group in rows.groupby("item_id", sort=False):
        item = study.by_id[item_id]
        choices = list(group["response"])
        if task == it.WORD_INTRUSION:
            out[str(item["topic"])] = {"model_precision": _item_score(item, choices),
                                       "n_word_intrusion": len(choices)}
        else:
            out[item["document"]] = {"topic_log_odds": _item_score(item, choices), "n": len(choices)}
        units.append([_item_score(item, [c]) for c in choices])
    return out, _reliability(units, seed, n_splits)


def _ratings(frame, study, task, key):
    rows = _task_rows(frame, study, task)
    out = {}
    for item_id, group in rows.groupby("item_id", sort=False):
        values = group["response"].astype(float).to_numpy()
        out[str(study.by_id[item_id]["topic"])] = {key: float(values.mean()), f"n_{key}": int(values.size)}
    agreement = None
    if not rows.empty:
        table = rows.pivot(index="annotator", columns="item_id", values="response").astype(float)
        try:
            agreement = {"krippendorff_alpha_ordinal": krippendorff_alpha(table.to_numpy(), "ordinal"),
                         "krippendorff_alpha_interval": krippendorff_alpha(table.to_numpy(), "interval")}
        except AgreementUndefined as exc:
            agreement = {"undefined": str(exc)}
    return out, agreement


def _reliability(units, seed, n_splits):
    if not units:
        return None
    try:
        return split_half_reliability(units, n_splits=n_splits, seed=seed)
    except AgreementUndefined as exc:
        return {"undefined": str(exc)}


def score(results: Results, study: Study, *, min_check_accuracy: float = 1.0, seed: int = 0,
          n_splits: int = 200) -> dict:
    """All scores of a study: per topic, per document, agreement, screening and import report."""
    min_check_accuracy = check_float(min_check_accuracy, "min_check_accuracy", min_value=0, max_value=1)
    seed = check_seed(seed)
    n_splits = check_int(n_splits, "n_splits", min_value=1)
    screening = screen_annotators(results, study, min_check_accuracy)
    frame = results.frame[~results.frame["annotator"].isin(screening["excluded"])]
    if frame.empty:
        raise EmptyInputError(f"every annotator failed the check items ({screening['excluded']}); "
                              "nothing left to score (lower --min-check-accuracy to inspect them)")
    topics: dict[str, dict] = {}
    wi, wi_rel = _intrusion(frame, study, it.WORD_INTRUSION, seed, n_splits)
    r, r_agree = _ratings(frame, study, it.RATING, "mean_rating")
    ml, ml_agree = _ratings(frame, study, it.MULTILINGUAL_RATING, "mean_multilingual_rating")
    for part in (wi, r, ml):
        for k, v in part.items():
            topics.setdefault(k, {"topic": k}).update(v)
    docs, ti_rel = _intrusion(frame, study, it.TOPIC_INTRUSION, seed, n_splits)
    sig = Signature("human", {"study": study.fingerprint, "checks": min_check_accuracy, "seed": seed,
                              "splits": n_splits})
    return {"signature": str(sig), "study": study.name, "n_annotators": int(frame["annotator"].nunique()),
            "n_judgments": int(len(frame)),
            "topics": sorted(topics.values(), key=lambda t: topic_order(t["topic"])),
            "documents": [{"document": d, **v} for d, v in docs.items()],
            "agreement": {"word_intrusion_split_half": wi_rel, "topic_intrusion_split_half": ti_rel,
                          "rating": r_agree, "multilingual_rating": ml_agree},
            "screening": screening, "import": results.report}
