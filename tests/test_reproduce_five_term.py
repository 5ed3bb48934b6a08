"""The five-term example of the article (spec §1), to three decimals."""

from __future__ import annotations

import json
import math

import pytest

from tealeaves.cli import main
from tealeaves.models import PLSA
from tealeaves.reproduce.five_term import five_term_corpus, five_term_table

EXPECTED = [  # model, log-likelihood, perplexity (worked-examples.md §1)
    ("uniform", -16.094, 5.000),
    ("unigram", -15.571, 4.745),
    ("plsa", -10.549, 2.872),
    ("own-distribution", -6.068, 1.835),
]


def test_five_term_table_reproduces_the_article():
    rows = five_term_table()
    assert len(rows) == 4
    for row, (name, ll, ppl) in zip(rows, EXPECTED):
        assert row["model"].startswith(name)
        assert round(row["log_likelihood"], 3) == ll
        assert round(row["perplexity"], 3) == ppl
        assert row["n_words"] == 10
        assert row["signature"].startswith("perplexity|eval=training-words|")


def test_unigram_row_by_hand():
    # probabilities 0.2, 0.1, 0.2, 0.3, 0.2 for counts 2, 1, 2, 3, 2
    ll = 2 * math.log(0.2) + math.log(0.1) + 2 * math.log(0.2) + 3 * math.log(0.3) + 2 * math.log(0.2)
    assert five_term_table()[1]["log_likelihood"] == pytest.approx(ll)


def test_plsa_needs_restarts_and_the_best_reaches_the_article_value():
    model = PLSA(2, n_restarts=20, random_state=0).fit(five_term_corpus())
    lls = model.restart_log_likelihoods_
    assert round(max(lls), 3) == -10.549
    assert min(lls) < -10.6  # some restarts stop at a worse local maximum


def test_cli_json(capsys):
    assert main(["reproduce", "five-term", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(round(r["log_likelihood"], 3), round(r["perplexity"], 3)) for r in rows] == [
        (ll, ppl) for _, ll, ppl in EXPECTED
    ]
