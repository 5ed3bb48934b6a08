"""Feature tables and saved coherence estimators (``tealeaves estimator features|train|apply``).

Feature table (CSV)
-------------------
One row per topic with the columns of :func:`tealeaves.multilingual.features.topic_features`,
a ``lang`` column (the low-resource language l2; the training groups), optionally a ``target``
column (the topic's CNPMI on a rich reference), and a first line::

    # tealeaves-features {"format_version": 1, "settings": {...}, "languages": ["en", "ro"]}

``settings`` are the *feature settings*: for each measure, the fields of its signature that
do not depend on the language pair (reference name without its languages and checksum,
cardinality, window, zero policy, MTA mode, era source, drift window...).  A table without
that line (e.g. the ``--topics-csv`` of ``tealeaves reproduce bible-vs-modern``) has
unrecorded settings.

Saved estimator (JSON)
----------------------
``{"format": "tealeaves-coherence-estimator", "format_version": 1, "tealeaves_version",
"sklearn_version", "features" (groups), "columns", "settings", "training_languages",
"n_training_topics", "best_params", "cv_score", "n_estimators", "random_state", "boosting":
{"estimator_weights", "estimator_errors", "learners": [{"coef", "intercept"}, ...]}}``: the
fitted AdaBoost.R2 ensemble of least-squares lines, written with full float precision, so a
loaded estimator predicts exactly what the trained one did.  :func:`check_compatible` refuses a
table whose columns or recorded settings differ from the estimator's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence

import numpy as np

from tealeaves._io import check_format
from tealeaves._params import renamed_parameters
from tealeaves.errors import InputFormatError, ParameterError

TABLE_MARK = "# tealeaves-features "
TABLE_VERSION = 1
FORMAT = "tealeaves-coherence-estimator"
FORMAT_VERSION = 1
#: Signature fields that name the language pair rather than a setting.
PAIR_FIELDS = ("langs", "lang", "dict")


def feature_settings(signatures: Mapping[str, str], languages: Sequence[str]) -> dict:
    """The language-independent part of each measure's signature (module docstring).

    Parameters
    ----------
    signatures : mapping of str to str
        Each measure's signature string, by measure (as
        :func:`~tealeaves.multilingual.features.topic_features` returns them; a ``target``
        entry is ignored).
    languages : sequence of str
        The language pair, whose ``-l1-l2`` suffix is cut from reference names.

    Returns
    -------
    dict
        Per measure, its signature fields without :data:`PAIR_FIELDS`, the reference named
        without its languages and checksum.
    """
    from tealeaves.signature import Signature

    suffix = "-" + "-".join(languages)
    out = {}
    for measure, text in sorted(signatures.items()):
        if measure == "target":
            continue
        sig = Signature.parse(text)
        fields = {k: v for k, v in sig.fields.items() if k not in PAIR_FIELDS}
        if "ref" in fields:
            name = str(fields["ref"]).rpartition("@")[0] or str(fields["ref"])  # name@checksum
            fields["ref"] = name[: -len(suffix)] if name.endswith(suffix) else name
        out[measure] = fields
    return out


# -- tables --------------------------------------------------------------------------
def write_table(path: str | os.PathLike[str], frame, settings: dict, languages: Sequence[str]) -> None:
    """Write a feature table with its settings line (atomically).

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file to write.
    frame : pandas.DataFrame
        One row per topic (module docstring).
    settings : dict
        The feature settings (:func:`feature_settings`).
    languages : sequence of str
        The language pair, recorded in the settings line.
    """
    from tealeaves._io import atomic_write

    head = {"format_version": TABLE_VERSION, "settings": settings, "languages": list(languages)}
    with atomic_write(path, what="feature table") as fh:
        fh.write(TABLE_MARK + json.dumps(head, sort_keys=True) + "\n")
        frame.to_csv(fh, index=False)


def read_table(path: str | os.PathLike[str]):
    """(data frame, settings or None) of a feature table.

    Parameters
    ----------
    path : str or os.PathLike
        A feature table (module docstring); the settings line is optional.

    Returns
    -------
    tuple of (pandas.DataFrame, dict or None)
        The rows, and the recorded feature settings (``None`` when the table has no
        settings line).

    Raises
    ------
    InputFormatError
        When the settings line is not JSON or has another version, or the table has no
        rows, is not CSV, or has no ``lang`` column.
    """
    import io

    import pandas as pd

    from tealeaves._io import read_text

    text = read_text(path, what="feature table", utf8_only=True)
    settings = None
    if text.startswith(TABLE_MARK):
        first, _, text = text.partition("\n")
        try:
            head = json.loads(first[len(TABLE_MARK):])
        except json.JSONDecodeError as exc:
            raise InputFormatError(f"feature table '{path}': the settings line is not JSON ({exc.msg})",
                                   fix="write tables with `tealeaves estimator features`") from None
        if not isinstance(head, dict) or head.get("format_version") != TABLE_VERSION:
            raise InputFormatError(f"feature table '{path}' has settings version "
                                   f"{head.get('format_version') if isinstance(head, dict) else head!r}; "
                                   f"this tealeaves reads {TABLE_VERSION}",
                                   fix="recompute it with `tealeaves estimator features`")
        settings = head.get("settings")
    if not text.strip():
        raise InputFormatError(f"feature table '{path}' has no rows", fix="one row per topic")
    try:
        frame = pd.read_csv(io.StringIO(text))  # pandas >= 3 parses floats round-trip exactly
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        raise InputFormatError(f"feature table '{path}' is not CSV ({exc})") from None
    if frame.empty:
        raise InputFormatError(f"feature table '{path}' has no rows", fix="one row per topic")
    if "lang" not in frame.columns:
        raise InputFormatError(f"feature table '{path}' has no 'lang' column",
                               fix="write tables with `tealeaves estimator features`")
    return frame, settings


def numeric_columns(frame, columns: Sequence[str], where: str) -> None:
    """Refuse missing, non-numeric or non-finite values in ``columns`` (naming column and row).

    Parameters
    ----------
    frame : pandas.DataFrame
        A feature table.
    columns : sequence of str
        The columns that must hold finite numbers.
    where : str
        The table's name in messages.

    Raises
    ------
    InputFormatError
        When a column is missing or a value is not a finite number.
    """
    import pandas as pd

    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputFormatError(f"{where} lacks the feature columns {missing}",
                               fix="compute the tables with those features (a dictionary, the era or "
                                   "drift resources) or train with fewer feature groups")
    for c in columns:
        values = pd.to_numeric(frame[c], errors="coerce").to_numpy(dtype=float)
        bad = np.flatnonzero(~np.isfinite(values))
        if len(bad):
            raise InputFormatError(f"{where}: column {c!r} row {int(bad[0]) + 1} is "
                                   f"{frame[c].iloc[bad[0]]!r}, not a finite number",
                                   fix="recompute the table")


# -- estimators ---------------------------------------------------------------------
@renamed_parameters({"n_topics": "n_components"})
def save_estimator(est, path: str | os.PathLike[str], settings: dict | None, languages: Sequence[str],
                   n_components: int) -> None:
    """Write a fitted :class:`CoherenceEstimator` as JSON (module docstring).

    Parameters
    ----------
    est : CoherenceEstimator
        The fitted estimator.
    path : str or os.PathLike
        The JSON file to write.
    settings : dict or None
        The feature settings of the training tables (``None``: unrecorded).
    languages : sequence of str
        The training languages.
    n_components : int
        The number of training topics.
    """
    import sklearn

    from tealeaves._io import write_text
    from tealeaves._version import __version__

    ada = est.estimator_
    doc = {"format": FORMAT, "format_version": FORMAT_VERSION, "tealeaves_version": __version__,
           "sklearn_version": sklearn.__version__, "features": list(est.features),
           "columns": list(est.feature_names_), "settings": settings,
           "training_languages": list(languages), "n_training_topics": int(n_components),
           "best_params": est.best_params_, "cv_score": est.cv_score_, "n_estimators": est.n_estimators,
           "random_state": est.random_state,
           "boosting": {"estimator_weights": ada.estimator_weights_.tolist(),
                        "estimator_errors": ada.estimator_errors_.tolist(),
                        "learners": [{"coef": m.coef_.tolist(), "intercept": float(m.intercept_)}
                                     for m in ada.estimators_]}}
    write_text(path, json.dumps(doc, indent=1) + "\n", what="estimator file")


def _bad(path, what: str) -> InputFormatError:
    return InputFormatError(f"'{path}' is not a tealeaves coherence estimator: {what}",
                            fix="train one with `tealeaves estimator train TABLES -o EST.json`")


def check_boosting(path, ada) -> None:
    """Validate a read AdaBoost.R2 ensemble's numbers (the estimator file's one numeric check).

    Every learner's coefficients and intercept are finite (JSON reads ``NaN``, ``Infinity`` and
    ``1e999`` as numbers), the estimator weights are finite, non-negative and not all zero (the
    prediction is their weighted median, Drucker 1997), and the errors are finite.

    Parameters
    ----------
    path : path
        The estimator file (named in messages).
    ada : sklearn.ensemble.AdaBoostRegressor
        The ensemble as read.

    Raises
    ------
    InputFormatError
        Naming the first non-finite or out-of-range value.
    """
    for i, m in enumerate(ada.estimators_):
        if not np.isfinite(m.coef_).all() or not np.isfinite(m.intercept_):
            raise _bad(path, f"learner {i} has a NaN or infinite coefficient or intercept")
    weights = ada.estimator_weights_
    if weights.ndim != 1 or not np.isfinite(weights).all() or (weights < 0).any():
        raise _bad(path, "the estimator weights must be finite and non-negative")
    if not weights[:len(ada.estimators_)].sum() > 0:
        raise _bad(path, "every learner has weight 0")
    if not np.isfinite(ada.estimator_errors_).all():
        raise _bad(path, "the estimator errors must be finite")


def load_estimator(path: str | os.PathLike[str]):
    """(fitted :class:`CoherenceEstimator`, the saved document) from :func:`save_estimator`'s file.

    The AdaBoost.R2 ensemble is rebuilt from the saved weights and lines, so the loaded
    estimator predicts exactly what the trained one did.

    Parameters
    ----------
    path : str or os.PathLike
        A file written by :func:`save_estimator`.

    Returns
    -------
    tuple of (CoherenceEstimator, dict)
        The fitted estimator and the saved JSON document.

    Raises
    ------
    InputFormatError
        When the file is not JSON, does not declare the format, has another format version,
        or has a missing or malformed field.
    """
    from sklearn.ensemble import AdaBoostRegressor
    from sklearn.linear_model import LinearRegression

    from tealeaves._io import read_text
    from tealeaves.multilingual.estimator import CoherenceEstimator, feature_columns

    try:
        doc = json.loads(read_text(path, what="estimator file", utf8_only=True))
    except json.JSONDecodeError as exc:
        raise _bad(path, f"not JSON ({exc.msg})") from None
    except RecursionError:
        raise _bad(path, "it is nested too deeply") from None
    check_format(doc, FORMAT, FORMAT_VERSION, bad=lambda m: _bad(path, m), subject="it",
                 what=f"estimator '{path}'", fix="retrain it with `tealeaves estimator train`")
    try:
        cols = feature_columns(tuple(doc["features"]))
        if cols != doc["columns"]:
            raise _bad(path, f"its columns {doc['columns']} do not match its groups {doc['features']}")
        boost = doc["boosting"]
        est = CoherenceEstimator(features=tuple(doc["features"]), n_estimators=doc["n_estimators"],
                                 random_state=doc["random_state"])
        ada = AdaBoostRegressor(estimator=LinearRegression(), n_estimators=doc["n_estimators"],
                                random_state=doc["random_state"], **doc["best_params"])
        learners = []
        for spec in boost["learners"]:
            m = LinearRegression()
            m.coef_, m.intercept_ = np.asarray(spec["coef"], dtype=float), float(spec["intercept"])
            m.n_features_in_ = len(cols)
            if m.coef_.shape != (len(cols),):
                raise _bad(path, f"a learner has {m.coef_.shape} coefficients for {len(cols)} columns")
            learners.append(m)
        ada.estimators_ = learners
        ada.estimator_ = LinearRegression()
        ada.estimator_weights_ = np.asarray(boost["estimator_weights"], dtype=float)
        ada.estimator_errors_ = np.asarray(boost["estimator_errors"], dtype=float)
        ada.n_features_in_ = len(cols)
    except (KeyError, TypeError, ValueError) as exc:
        raise _bad(path, f"a field is missing or malformed ({exc})") from None
    if ada.estimator_weights_.ndim != 1 or ada.estimator_errors_.ndim != 1:
        raise _bad(path, "the estimator weights and errors must be lists of numbers")
    if len(ada.estimator_weights_) < len(learners):
        raise _bad(path, "fewer weights than learners")
    check_boosting(path, ada)
    est.estimator_, est.feature_names_ = ada, cols
    est.best_params_, est.cv_score_ = doc["best_params"], doc.get("cv_score")
    return est, doc


def check_compatible(doc: dict, table_settings: dict | None, where: str) -> None:
    """Refuse a table computed with other feature settings than the estimator was trained on.

    Parameters
    ----------
    doc : dict
        The saved estimator's document (:func:`load_estimator`).
    table_settings : dict or None
        The table's feature settings (:func:`read_table`).
    where : str
        The table's name in messages.

    Raises
    ------
    ParameterError
        When the settings differ, or either side's are unrecorded.
    """
    trained = doc.get("settings")
    if trained == table_settings:
        return
    if trained is None or table_settings is None:
        which = "the estimator's" if trained is None else f"{where}'s"
        raise ParameterError(f"{which} feature settings are unrecorded, so {where} cannot be shown to match "
                             "the estimator's training features",
                             fix="compute both tables with `tealeaves estimator features`")
    diff = sorted(m for m in set(trained) | set(table_settings) if trained.get(m) != table_settings.get(m))
    details = "; ".join(f"{m}: trained {trained.get(m)} vs {table_settings.get(m)}" for m in diff[:3])
    raise ParameterError(f"{where} was computed with other feature settings than the estimator was trained "
                         f"on ({details})", fix="recompute the features with the training settings")

