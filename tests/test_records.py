"""``tealeaves._records.RecordDict``: the one ``to_dict`` of result dataclasses."""

from __future__ import annotations

from dataclasses import dataclass

from tealeaves._records import RecordDict
from tealeaves.likelihood._perplexity import LikelihoodResult
from tealeaves.signature import Signature


@dataclass
class _Every(RecordDict):
    b: int
    a: str


@dataclass
class _Chosen(RecordDict):
    n: int
    signature: Signature
    hidden: int = 0

    _DICT_KEYS = ("twice", "n", "signature")

    @property
    def twice(self) -> int:
        return 2 * self.n


def test_record_dict_gives_every_field_in_declaration_order():
    assert list(_Every(1, "x").to_dict().items()) == [("b", 1), ("a", "x")]


def test_record_dict_gives_the_chosen_keys_in_order_and_the_signature_as_text():
    sig = Signature("m", {"k": 1})
    out = _Chosen(3, sig, hidden=9).to_dict()
    assert list(out) == ["twice", "n", "signature"]
    assert out["twice"] == 6 and out["signature"] == str(sig)


def test_likelihood_result_dict_counts_the_scored_tokens_twice():
    sig = Signature("perplexity", {"x": 1})
    out = LikelihoodResult(-2.0, 3.0, 7, 2, sig, 1).to_dict()
    assert list(out) == ["log_likelihood", "perplexity", "n_words", "n_tokens_scored", "n_documents",
                         "n_dropped_oov", "signature"]
    assert out["n_tokens_scored"] == out["n_words"] == 7 and out["signature"] == str(sig)
