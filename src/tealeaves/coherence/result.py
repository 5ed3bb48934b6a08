"""The result of scoring topics: per-topic scores, their mean, the signature and the word-pair matrices.

:class:`CoherenceResult` is what :func:`tealeaves.coherence.coherence` and
:meth:`tealeaves.coherence.Coherence.score` return; :func:`coherence_records` is its per-topic table,
read from the result's JSON as well.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves._output import format_table
from tealeaves.coherence.presets import MeasureSpec
from tealeaves.signature import Signature

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class TopicScore:
    """One topic's coherence.

    ``score`` is ``None`` when fewer than two of its words occur in the
    reference (those words are listed in ``missing``); such topics are left
    out of the mean.

    Parameters
    ----------
    words : list of str
        The topic's words, best first.
    score : float or None
        Its coherence.
    missing : list of str, optional
        Its words absent from the reference.
    by_top : dict or None, optional
        With several cardinalities (``n_top=[5, 10, ...]``): the score of each; ``score`` is
        their mean.
    """

    words: list[str]
    score: float | None
    missing: list[str] = field(default_factory=list)
    #: with several cardinalities (``n_top=[5, 10, ...]``): the score of each; ``score`` is their mean
    by_top: dict[int, float | None] | None = None

    def to_dict(self) -> dict:
        """The score as a JSON-ready dict.

        Returns
        -------
        dict
            ``words``, ``score``, ``missing`` and, with several cardinalities, ``by_top``.
        """
        out = {"words": self.words, "score": self.score, "missing": self.missing}
        if self.by_top is not None:
            out["by_top"] = {str(n): v for n, v in self.by_top.items()}
        return out


def coherence_records(result: Mapping) -> list[dict]:
    """The per-topic table of a coherence result given as its JSON (:meth:`CoherenceResult.to_dict`).

    One row per topic, in the result's order: ``topic`` (its index), the score under the measure's
    name (e.g. ``npmi``; ``None`` when the topic could not be scored), one ``<measure>@<n>`` column
    per cardinality when several were scored, ``words`` and ``missing`` (space-separated).  This is
    the table ``tealeaves coherence`` writes as CSV/TSV and the one ``tealeaves human correlate``
    reads out of the JSON, so the two files are read alike.

    Parameters
    ----------
    result : mapping
        ``{"measure": name, "topics": [{"words", "score", "missing", "by_top"?}, ...], ...}``.

    Returns
    -------
    list of dict
        The rows.
    """
    name = str(result["measure"])
    rows = []
    for i, t in enumerate(result["topics"]):
        row = {"topic": i, name: t.get("score")}
        row.update({f"{name}@{n}": v for n, v in (t.get("by_top") or {}).items()})
        words, missing = " ".join(t.get("words") or []), " ".join(t.get("missing") or [])
        rows.append({**row, "words": words, "missing": missing})
    return rows


@dataclass
class CoherenceResult:
    """Per-topic scores, their mean, the settings' signature and the word-pair matrices.

    Parameters
    ----------
    signature : Signature
        The reproducibility signature of the score.
    topics : list of TopicScore
        One score per topic.
    spec : MeasureSpec
        The pipeline that scored them.
    _matrices : tuple, optional
        Internal: ``(topics x k x k values, valid mask)``, read by :meth:`pair_matrix`.
    """

    signature: Signature
    topics: list[TopicScore]
    spec: MeasureSpec
    _matrices: tuple = field(repr=False, default=())  # (topics x k x k values, valid mask)

    @property
    def scores(self) -> list[float | None]:
        return [t.score for t in self.topics]

    @property
    def mean(self) -> float | None:
        """Mean over the scored topics (``None`` if no topic could be scored)."""
        vals = [t.score for t in self.topics if t.score is not None]
        return float(np.mean(vals)) if vals else None

    @property
    def n_unscored(self) -> int:
        return sum(t.score is None for t in self.topics)

    @shared_doc
    def pair_matrix(self, topic: int) -> pd.DataFrame:
        """Word-by-word confirmation of one topic (rows W', columns W*), present words only.

        For direct measures cell ``(a, b)`` is the confirmation of ``a`` by
        ``b``; the topic score aggregates the cells chosen by the segmentation
        (all off-diagonal cells for one-one, the lower triangle for one-pre).
        For ``cosine`` it is the NPMI matrix the context vectors are made of.

        Parameters: %(topic_index)s

        Returns
        -------
        pandas.DataFrame
            The matrix, indexed by the topic's present words.

        Raises
        ------
        ParameterError
            When ``topic`` is not a topic index (0 .. number of topics - 1).
        """
        from tealeaves.coherence.params import PAIRS

        topic = PAIRS.replace(name="topic", max_value=len(self.topics) - 1).check(topic)
        mat, valid = self._matrices
        keep = np.flatnonzero(valid[topic])
        names = [self.topics[topic].words[i] for i in keep]
        import pandas as pd  # only here: the coherence command never needs pandas (0.3-0.6 s to import)

        return pd.DataFrame(mat[topic][np.ix_(keep, keep)], index=names, columns=names)

    def to_dict(self) -> dict:
        """The result as a JSON-ready dict.

        Returns
        -------
        dict
            ``signature``, ``measure``, ``mean``, ``n_unscored`` and the ``topics``' dicts.
        """
        return {"signature": str(self.signature), "measure": self.spec.name, "mean": self.mean,
                "n_unscored": self.n_unscored, "topics": [t.to_dict() for t in self.topics]}

    def to_records(self) -> list[dict]:
        """One row per topic, the table ``tealeaves coherence -o scores.csv`` writes.

        Returns
        -------
        list of dict
            See :func:`coherence_records` (computed from :meth:`to_dict`, so the CSV and the JSON
            give a reader the same table).
        """
        return coherence_records(self.to_dict())

    def to_text(self, matrices: Sequence[int] = ()) -> str:
        """A readable report: one row per topic, then the requested topics' pair matrices.

        Parameters
        ----------
        matrices : sequence of int, optional
            Topics whose pair matrix is appended.

        Returns
        -------
        str
            The signature, the table of topics, the mean and the matrices.
        """
        rows = [{"topic": i, "score": "-" if t.score is None else f"{t.score:.4f}",
                 "words": " ".join(t.words), "missing": " ".join(t.missing)}
                for i, t in enumerate(self.topics)]
        mean = "-" if self.mean is None else f"{self.mean:.4f}"
        parts = [str(self.signature), format_table(rows), f"mean {mean} over "
                 f"{len(self.topics) - self.n_unscored} scored topics"]
        for k in matrices:
            m = self.pair_matrix(k)
            table = [{"": r, **{c: float(m.loc[r, c]) for c in m.columns}} for r in m.index]
            parts.append(f"topic {k} word pairs ({self.spec.confirmation}):\n"
                         + format_table(table, floatfmt=".3f"))
        return "\n\n".join(parts)
