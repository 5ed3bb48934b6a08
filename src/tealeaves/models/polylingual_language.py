"""One language's topics of a fitted polylingual topic model, as a monolingual tealeaves model.

Returned by :meth:`~tealeaves.models.polylingual.PolylingualTopicModel.language_model` and used by
:class:`~tealeaves.models.lda_gibbs.GibbsLDA`.
"""

from __future__ import annotations

import numpy as np

from tealeaves._docs import shared_doc
from tealeaves.corpus import Corpus, Vocabulary
from tealeaves.corpus.aligned import AlignedCorpus
from tealeaves.models.base import TopicModel


class PLTMLanguageModel(TopicModel):
    """One language's topics of a fitted PLTM, as a monolingual tealeaves model.

    ``topic_word_`` is that language's ``K x V_l`` matrix, ``doc_topic_prior_``
    the PLTM's ``alpha``, ``transform(corpus)`` folds in monolingual documents
    with the PLTM's Gibbs inference, and ``doc_topic_`` holds the training
    documents of this language (one row per present document).

    Parameters
    ----------
    parent : PolylingualTopicModel
        The fitted PLTM.
    lang : str
        One of its languages.
    """

    def __init__(self, parent: object, lang: str):  # a PolylingualTopicModel (not imported: no circle)
        self.parent = parent
        self.language = lang
        self.vocabulary_: Vocabulary = parent.vocabularies_[lang]
        self.topic_word_ = parent.topic_word_[lang]
        self.doc_topic_prior_ = parent.alpha_

    @property
    def doc_topic_(self) -> np.ndarray:
        return self.parent.language_doc_topic(self.language)

    @shared_doc
    def transform(self, corpus: Corpus, **kwargs) -> np.ndarray:
        """Infer ``theta`` of monolingual documents over this language's vocabulary.

        Parameters
        ----------
        corpus : Corpus
            Documents over this language's vocabulary.
        **kwargs
            Passed to :meth:`PolylingualTopicModel.transform` (``n_iter``, ``burn_in``, ``thin``,
            ``random_state``).

        Returns: %(returns_doc_topic)s

        Raises
        ------
        %(raises_not_corpus)s
        """
        if not isinstance(corpus, Corpus):
            raise TypeError(f"transform expects a Corpus, got {type(corpus).__name__}")
        present = corpus.lengths >= 0
        ac = AlignedCorpus([self.language], {self.language: corpus}, {self.language: present}, corpus.ids)
        return self.parent.transform(ac, **kwargs)

    def description(self) -> str:
        """Short description for signatures.

        Returns
        -------
        str
            The PLTM's description followed by ``/<language>``.
        """
        return f"{self.parent.description()}/{self.language}"
