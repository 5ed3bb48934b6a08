"""Bad topics and reference token lists given to the coherence API (``Coherence.score``,
``index_from_token_lists``): a topic word that is not a string is refused, never mapped to another word;
tokens that are not strings are refused; the word table maps every distinct word to its own id.

Each case asserts the error class and a message fragment, or a value equal to an independent computation.
A comment "before:" says what the case did before its fix."""

from __future__ import annotations

import re

import pytest

from tealeaves.errors import InputFormatError


# -- topic words ---------------------------------------------------------------------------------------------
def test_a_none_topic_word_through_the_api_is_refused():
    from tealeaves.coherence import Coherence, TopicError, index_from_token_lists

    ix = index_from_token_lists([["cat", "dog"], ["sun", "moon"], ["cat", "moon"]])
    with pytest.raises(TopicError, match="words must be strings"):
        Coherence("npmi", n_top=3).score([["cat", None, "sun"]], ix)  # 7818f2a: -0.333; dfe11a6: -1.0


@pytest.mark.parametrize("topic, fragment", [
    (["cat", None, "sun"], "has the word None (NoneType)"),
    (["cat", float("nan"), "sun"], "has the word nan (float)"),
    (5, "topic 0 is int 5"),
])
def test_a_topic_word_that_is_not_a_string_is_refused_not_mapped_to_another_word(topic, fragment):
    """A None word once passed the check (``next(..., None)`` could not tell it from no bad word) and the
    word table's hashing then mapped it to the last distinct word: a score of -0.333 for a topic of a
    missing word."""
    from tealeaves.coherence import Coherence, TopicError, index_from_token_lists

    ix = index_from_token_lists([["cat", "dog"], ["sun", "moon"], ["cat", "moon"]])
    with pytest.raises(TopicError, match=re.escape(fragment)):
        Coherence("npmi", n_top=3).score([topic], ix)


def test_word_table_gives_every_distinct_word_its_own_id():
    """The word table (one hash pass over the topic words) maps each position to its own word's id:
    equal to a dictionary lookup per position on topics with repeats across topics, missing words and
    words without postings."""
    from tealeaves.coherence import index_from_token_lists
    from tealeaves.coherence.measure import _word_table

    ix = index_from_token_lists([["a", "b", "c"], ["b", "d"], ["e"]])
    topics = [["a", "zz", "b"], ["d", "a"], ["e", "c", "b", "yy"]]
    loc, uniq = _word_table(ix, topics)
    for t, words in enumerate(topics):
        for i, w in enumerate(words):
            wid = ix.vocabulary.index.get(w)
            assert (uniq[loc[t, i]] if loc[t, i] >= 0 else None) == wid
        assert (loc[t, len(words):] == -1).all()


# -- reference token lists -----------------------------------------------------------------------------------
@pytest.mark.parametrize("docs, words, shown", [
    ([[1, 2]], None, "1 (int)"), ([["a", None]], None, "None (NoneType)"), ([["a", 3]], ["a"], "3 (int)"),
    ([["a", b"b"]], None, "b'b' (bytes)")])
def test_token_lists_of_non_strings(docs, words, shown):
    # before: AttributeError "'int' object has no attribute 'encode'" (and None, in a restricted index, read
    # as a token outside the words)
    from tealeaves.coherence import Coherence, index_from_token_lists

    with pytest.raises(InputFormatError, match=re.escape(f"hold the token {shown}; tokens must")):
        index_from_token_lists(docs, words=words)
    with pytest.raises(InputFormatError, match="tokens must be strings"):
        Coherence("npmi", n_top=2).score([["a", "x"]], docs)
