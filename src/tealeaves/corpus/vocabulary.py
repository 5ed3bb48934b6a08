"""A fixed, ordered vocabulary mapping words to integer ids."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from tealeaves.errors import EmptyInputError, InputFormatError


class Vocabulary(Sequence[str]):
    """An immutable list of distinct words; ``vocab[i]`` is word ``i``.

    ``vocab.id(word)`` (or ``vocab.index[word]``) goes the other way.

    Parameters
    ----------
    words : iterable of str
        The words, in id order, each once.

    Raises
    ------
    InputFormatError
        If a word is listed twice.
    """

    def __init__(self, words: Iterable[str]):
        self.words: list[str] = list(words)
        self.index: dict[str, int] = {w: i for i, w in enumerate(self.words)}
        if len(self.index) != len(self.words):
            seen: set[str] = set()
            dupes = [w for w in self.words if w in seen or seen.add(w)]  # type: ignore[func-returns-value]
            raise InputFormatError(f"vocabulary has duplicate words: {dupes[:5]}")

    def __len__(self) -> int:
        return len(self.words)

    def __getitem__(self, i):  # type: ignore[override]
        return self.words[i]

    def __iter__(self) -> Iterator[str]:
        return iter(self.words)

    def __contains__(self, word: object) -> bool:
        return word in self.index

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Vocabulary) and self.words == other.words

    def __hash__(self) -> int:
        return hash(tuple(self.words))

    def __repr__(self) -> str:
        head = ", ".join(self.words[:5])
        return f"Vocabulary({len(self)} words: {head}{', ...' if len(self) > 5 else ''})"

    def id(self, word: str) -> int:
        """Return the id of ``word``.

        Parameters
        ----------
        word : str
            A word of the vocabulary.

        Returns
        -------
        int
            Its id.

        Raises
        ------
        KeyError
            Naming the word, if it is absent.
        """
        try:
            return self.index[word]
        except KeyError:
            raise KeyError(f"word {word!r} is not in the vocabulary") from None

    def encode(self, tokens: Iterable[str]) -> tuple[np.ndarray, int]:
        """Map tokens to ids, dropping out-of-vocabulary tokens.

        Parameters
        ----------
        tokens : iterable of str
            The tokens of one document.

        Returns
        -------
        ids : numpy.ndarray
            The int32 ids of the known tokens, in order.
        n_dropped : int
            The number of tokens dropped, so callers can report them.
        """
        tokens = tokens if isinstance(tokens, Sequence) else list(tokens)
        index = self.index
        ids = [index[t] for t in tokens if t in index]
        return np.asarray(ids, dtype=np.int32), len(tokens) - len(ids)

    def decode(self, ids: Iterable[int]) -> list[str]:
        """Map ids back to words.

        Parameters
        ----------
        ids : iterable of int
            Word ids.

        Returns
        -------
        list of str
            The words.
        """
        return [self.words[int(i)] for i in ids]

    @classmethod
    def from_documents(cls, documents: Iterable[Iterable[str]]) -> Vocabulary:
        """Build a vocabulary of every distinct token, in order of first appearance.

        Parameters
        ----------
        documents : iterable of iterable of str
            Tokenised documents.

        Returns
        -------
        Vocabulary
            The vocabulary.

        Raises
        ------
        EmptyInputError
            If the documents contain no tokens.
        """
        seen = dict.fromkeys(tok for doc in documents for tok in doc)
        if not seen:
            raise EmptyInputError("cannot build a vocabulary: the documents contain no tokens")
        return cls(seen)
