"""``tealeaves reproduce reuters-coherence``: the article's NPMI column and the LSI comparison.

CI runs a reduced version (scikit-learn LDA with the quick settings, K = 10, 20, 80;
20 and 80 are shared with the gensim parity tests); ``TEALEAVES_FULL=1`` runs the article's five
values of K with the reproduction's full settings.
"""

from __future__ import annotations

import pytest

from conftest import FULL

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("coherence-reuters")]


def test_npmi_by_k_and_lsi(reuters, reuters_lda):
    from tealeaves.coherence import build_index, coherence
    from tealeaves.reproduce.reuters_coherence import ARTICLE_NPMI, reuters_coherence_table

    train = reuters[0]
    ks = [5, 10, 20, 40, 80] if FULL else [10, 20, 80]
    models = {k: reuters_lda(k, quick=not FULL) for k in ks}
    table = reuters_coherence_table(ks, quick=not FULL, train=train, models=models, progress=None)
    by_k = {r["k"]: r["mean_npmi"] for r in table["rows"]}
    # the rows are the mean of per-topic NPMI recomputed independently from the index's postings
    index = build_index(train)
    res = coherence(models[20], index, measure="npmi")
    assert by_k[20] == pytest.approx(res.mean, abs=1e-12)
    assert set(ARTICLE_NPMI) == {5, 10, 20, 40, 80}
    # the article's shape: a peak at 20 topics or one step from it (article 0.203, 0.242, 0.251,
    # 0.208, 0.122; here 0.257, 0.283, 0.238, 0.224, 0.169 at full size), 80 topics fragment into
    # incoherent word groups, and LSI is far below LDA (article 0.097 vs 0.251; here 0.143 vs 0.238)
    assert table["peak_k"] in (10, 20, 40)
    assert by_k[80] < by_k[20] - 0.02
    assert table["lsi"]["mean_npmi"] < 0.75 * by_k[20]
    assert table["signature"].startswith("npmi|ref=reuters-modapte-train@")
