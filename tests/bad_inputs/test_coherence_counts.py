"""The counting functions of the coherence core (``count_documents``, ``count_windows``,
``count_context``): the frequent-pair path equals brute force for every ``frequent``, and ``frequent``, word
ids and pair entries out of range are refused.

Each case asserts the error class and a message fragment, or counts equal to a brute-force recount.  A
comment "before:" says what the case did before its fix."""

from __future__ import annotations

import pytest


# -- the frequent-pair path against brute force --------------------------------------------------------------
def _brute_counts(docs, words, pairs, window):
    units = []
    for d in docs:
        if window is None:
            units.append(set(d))
        else:
            units.extend(set(d[s:s + window]) for s in range(max(1, len(d) - window + 1)))
    return (len(units), [sum(w in u for u in units) for w in words],
            [sum(words[a] in u and words[b] in u for u in units) for a, b in pairs])


def _corpora():
    import random

    r = random.Random(1)
    vocab = [f"w{i}" for i in range(30)]
    return {"random": [[r.choice(vocab[:r.randint(2, 30)]) for _ in range(r.randint(1, 40))]
                       for _ in range(60)],
            "one document": [[r.choice(vocab) for _ in range(25)]],
            "short documents": [[r.choice(vocab[:5]) for _ in range(r.randint(1, 3))] for _ in range(20)]}


@pytest.mark.parametrize("corpus", ["random", "one document", "short documents"])
@pytest.mark.parametrize("window", [None, 1, 2, 5, 110, 10**6])
def test_frequent_pair_counts_equal_brute_force(corpus, window):
    """Counts are the same whatever ``frequent`` (0 .. all words, and beyond them up to MAX_FREQUENT), for
    all pairs, repeated-word pairs, and windows longer than every document."""
    from tealeaves.coherence.core import MAX_FREQUENT, count_documents, count_windows
    from tealeaves.corpus.corpus import Corpus
    from tealeaves.index import build_index

    docs = _corpora()[corpus]
    ix = build_index(Corpus.from_token_lists(docs))
    words = list(ix.vocabulary)[:12]
    ids = [ix.word_id(w) for w in words]
    for pairs in ([(a, b) for a in range(len(words)) for b in range(a + 1, len(words))],
                  [(0, 0), (1, 1), (0, 1), (1, 0)], [(2, 3)]):
        expected = _brute_counts(docs, words, pairs, window)
        for frequent in (None, 0, 1, 3, 12, 13, MAX_FREQUENT):
            c = (count_documents(ix, ids, pairs, frequent=frequent) if window is None
                 else count_windows(ix, ids, pairs, window, frequent=frequent))
            got = (c.n_units, [int(x) for x in c.single], [int(x) for x in c.joint])
            assert got == expected, (pairs[:3], frequent)


# -- arguments out of range ----------------------------------------------------------------------------------
@pytest.mark.parametrize("window", [None, 3])
@pytest.mark.parametrize("frequent, fragment", [(-1, "frequent must be a whole number >= 0"),
                                                (2.5, "frequent must be a whole number"),
                                                (True, "frequent must be a whole number"),
                                                (10**9, "frequent must be a whole number")])
def test_frequent_out_of_range_refused(window, frequent, fragment):
    # before: -1 was read as order[:-1], 2.5 and True were coerced by int(), and 10**9 was not capped (an
    # F x F table per thread of gigabytes for a large call); the counts stayed right, the setting did not
    from tealeaves.coherence.core import count_documents, count_windows
    from tealeaves.corpus.corpus import Corpus
    from tealeaves.errors import ParameterError
    from tealeaves.index import build_index

    ix = build_index(Corpus.from_token_lists(_corpora()["random"]))
    ids = [ix.word_id(w) for w in list(ix.vocabulary)[:4]]
    with pytest.raises(ParameterError, match=fragment):
        if window is None:
            count_documents(ix, ids, [(0, 1)], frequent=frequent)
        else:
            count_windows(ix, ids, [(0, 1)], window, frequent=frequent)


@pytest.mark.parametrize("call", ["documents", "windows", "context"])
@pytest.mark.parametrize("ids, pairs, fragment", [([-1, 0], [(0, 1)], "word id -1 is not a word"),
                                                  ([0, 10**6], [(0, 1)], "word id 1000000 is not a word"),
                                                  ([0, 1], [(-1, 0)], "pair entry -1 does not index"),
                                                  ([0, 1], [(0, 2)], "pair entry 2 does not index")])
def test_core_word_ids_and_pairs_checked(call, ids, pairs, fragment):
    # before: count_documents(ix, [-1, 0], ...) returned single = [-7, 2]; count_windows raised a bare
    # ValueError ("negative dimensions"); an id past the vocabulary an IndexError; a pair (-1, 0) wrapped
    # silently to the last word
    from tealeaves.coherence.core import count_context, count_documents, count_windows
    from tealeaves.coherence.errors import SettingsError
    from tealeaves.corpus.corpus import Corpus
    from tealeaves.index import build_index

    ix = build_index(Corpus.from_token_lists(_corpora()["random"]))
    fn = {"documents": lambda: count_documents(ix, ids, pairs),
          "windows": lambda: count_windows(ix, ids, pairs, 3),
          "context": lambda: count_context(ix, ids, pairs, 3)}[call]
    with pytest.raises(SettingsError, match=fragment):
        fn()
