"""The coherence estimator of Hao, Boyd-Graber and Paul (2018, §3-4).

It learns to map features computed with a *poor* reference (the Bible) to the
CNPMI a *rich* reference (Wikipedia in the paper) would give, on topics of
high-resource language pairs, and is then applied to a held-out language pair.

* Model: AdaBoost.R2 (Drucker 1997) with ordinary least squares as the base
  learner, i.e. ``AdaBoostRegressor(estimator=LinearRegression())``.
* Feature groups (switch them with ``features=``):

  ========  =====================================================
  base      ``C``, ``cnpmi``, ``inpmi``, ``mta``, ``twc``
  gap       ``mc``, ``icc``
  era       ``era_mean``, ``era_std``
  drift     ``drift_mean``, ``drift_std``
  ========  =====================================================

* Hyperparameters (learning rate, loss in {linear, square, exponential}) are
  chosen by grouped k-fold cross-validation over the training languages
  (``GroupKFold``, ``n_splits`` = min(3, number of languages)), scoring each
  candidate by the Pearson correlation of its predictions with the target on
  the held-out folds (the paper's evaluation criterion).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy.stats import pearsonr
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.ensemble import AdaBoostRegressor
from sklearn.linear_model import LinearRegression
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, GroupKFold

from tealeaves._params import check_params
from tealeaves.errors import EmptyInputError, TealeavesError
from tealeaves.multilingual._estimator_params import ESTIMATOR_PARAMS

#: Columns of each feature group, in the order the paper lists them.
FEATURE_GROUPS: dict[str, tuple[str, ...]] = {
    "base": ("C", "cnpmi", "inpmi", "mta", "twc"),
    "gap": ("mc", "icc"),
    "era": ("era_mean", "era_std"),
    "drift": ("drift_mean", "drift_std"),
}

DEFAULT_PARAM_GRID: dict[str, list] = {
    "learning_rate": [0.01, 0.1, 0.5, 1.0],
    "loss": ["linear", "square", "exponential"],
}


def pearson(a: Sequence[float], b: Sequence[float]) -> float:
    """Pearson correlation; 0.0 (documented) when either side is constant or shorter than 2.

    The estimator's evaluation criterion (Hao, Boyd-Graber and Paul 2018) and its
    cross-validation score.

    Parameters
    ----------
    a : sequence of float
        One series.
    b : sequence of float
        The other, of the same length.

    Returns
    -------
    float
        Pearson's r, or 0.0.
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(a) < 2 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return 0.0
    return float(pearsonr(a, b)[0])


def feature_columns(features: Sequence[str]) -> list[str]:
    """The data-frame columns used by the given feature groups.

    Parameters
    ----------
    features : sequence of str
        Feature groups, keys of :data:`FEATURE_GROUPS`.

    Returns
    -------
    list of str
        Their columns, group by group in the order given.

    Raises
    ------
    TealeavesError
        When ``features`` is empty or names an unknown group.
    """
    unknown = [f for f in features if f not in FEATURE_GROUPS]
    if unknown or not features:
        raise TealeavesError(f"unknown feature groups {unknown or features!r}; "
                             f"choose from {sorted(FEATURE_GROUPS)}")
    return [c for f in features for c in FEATURE_GROUPS[f]]


class CoherenceEstimator(BaseEstimator, RegressorMixin):
    """AdaBoost.R2 over linear regression, predicting rich-reference CNPMI per topic.

    The coherence estimator of Hao, Boyd-Graber and Paul (2018, §3-4); AdaBoost.R2 is
    Drucker (1997).  ``n_estimators`` and ``random_state`` are checked by :meth:`fit`
    against their declarations (``ESTIMATOR_PARAMS``, also the options of ``tealeaves
    estimator train``).

    Parameters
    ----------
    features : sequence of str, default ("base", "gap", "era", "drift")
        Feature groups to use, a subset of ("base", "gap", "era", "drift").
    param_grid : mapping, optional
        Grid over ``AdaBoostRegressor`` parameters (default: learning_rate x loss).
    n_estimators : int, default 50
        Boosting rounds, 1 to 10000.
    n_splits : int, default 3
        Folds of the grouped cross-validation (capped by the number of groups).
    random_state : int or None, default 0
        Seed of AdaBoost's weighted resampling.
    """

    def __init__(self, features: Sequence[str] = ("base", "gap", "era", "drift"),
                 param_grid: Mapping[str, Sequence] | None = None, n_estimators: int = 50,
                 n_splits: int = 3, random_state: int | None = 0):
        self.features = features
        self.param_grid = param_grid
        self.n_estimators = n_estimators
        self.n_splits = n_splits
        self.random_state = random_state

    def _matrix(self, X: pd.DataFrame) -> np.ndarray:
        cols = feature_columns(tuple(self.features))
        missing = [c for c in cols if c not in X.columns]
        if missing:
            raise TealeavesError(f"feature columns {missing} are missing; compute them "
                                 "(see tealeaves.multilingual.features) or drop their group")
        M = X[cols].to_numpy(dtype=float)
        if not np.all(np.isfinite(M)):
            bad = [c for c in cols if not np.all(np.isfinite(X[c].to_numpy(dtype=float)))]
            raise TealeavesError(f"feature columns {bad} hold NaN or infinite values; fix the inputs")
        return M

    def fit(self, X: pd.DataFrame, y: Sequence[float], groups: Sequence | None = None) -> CoherenceEstimator:
        """Select hyperparameters by grouped CV over ``groups`` (languages), then refit on all rows.

        Each grid point is scored by the :func:`pearson` correlation of its held-out
        predictions with ``y`` (``GroupKFold``).  With fewer than two groups no
        cross-validation is possible: the first grid point is fitted and ``cv_score_`` is
        ``None``.

        Parameters
        ----------
        X : pandas.DataFrame
            One row per topic, holding the columns of the chosen feature groups
            (:func:`~tealeaves.multilingual.features.topic_features`).
        y : sequence of float
            The target per topic: its CNPMI on a rich reference.
        groups : sequence, optional
            The group of each row (its language pair's low-resource language).

        Returns
        -------
        CoherenceEstimator
            ``self``, with ``best_params_``, ``cv_score_``, ``estimator_`` and
            ``feature_names_`` set.

        Raises
        ------
        ParameterError
            When ``n_estimators`` or ``random_state`` is out of its declared bounds.
        EmptyInputError
            When there are fewer than two rows, or not one target per row.
        TealeavesError
            When a feature column is missing or holds NaN or infinite values.
        """
        check_params(ESTIMATOR_PARAMS, {n: getattr(self, n) for n in ESTIMATOR_PARAMS})
        M = self._matrix(X)
        y = np.asarray(y, dtype=float)
        if len(M) < 2 or len(y) != len(M):
            raise EmptyInputError(f"need at least two topics with one target each, got {len(M)} rows "
                                  f"and {len(y)} targets")
        base = AdaBoostRegressor(estimator=LinearRegression(), n_estimators=self.n_estimators,
                                 random_state=self.random_state)
        grid = dict(self.param_grid or DEFAULT_PARAM_GRID)
        n_groups = len(set(groups)) if groups is not None else 0
        self.feature_names_ = feature_columns(tuple(self.features))
        if n_groups >= 2:
            search = GridSearchCV(base, grid, cv=GroupKFold(n_splits=min(self.n_splits, n_groups)),
                                  scoring=make_scorer(pearson), refit=True)
            search.fit(M, y, groups=np.asarray(groups))
            self.best_params_ = dict(search.best_params_)
            self.cv_score_ = float(search.best_score_)
            self.estimator_ = search.best_estimator_
        else:  # one language only: no cross-validation possible, first grid point
            self.best_params_ = {k: list(v)[0] for k, v in grid.items()}
            self.cv_score_ = None
            self.estimator_ = clone(base).set_params(**self.best_params_).fit(M, y)
        return self

    def predict(self, X: pd.DataFrame) -> np.ndarray:
        """Estimated rich-reference CNPMI per topic (row of ``X``).

        Parameters
        ----------
        X : pandas.DataFrame
            One row per topic, with the columns the estimator was fitted on.

        Returns
        -------
        numpy.ndarray
            One estimate per row.

        Raises
        ------
        TealeavesError
            When the estimator is not fitted, or a feature column is missing or not finite.
        """
        if not hasattr(self, "estimator_"):
            raise TealeavesError("CoherenceEstimator is not fitted; call fit(X, y, groups) first")
        return self.estimator_.predict(self._matrix(X))
