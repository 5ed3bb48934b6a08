"""Corpora: vocabulary, the corpus type, preprocessing and readers.

Names are exported lazily (:mod:`tealeaves._lazy`): a submodule loads on first use.
"""

from typing import TYPE_CHECKING

from tealeaves._lazy import lazy_package

if TYPE_CHECKING:  # for type checkers and the API reference
    from tealeaves.corpus.aligned import AlignedCorpus, default_preprocessor, normalize_language
    from tealeaves.corpus.corpus import Corpus
    from tealeaves.corpus.preprocess import LETTERS_PATTERN, Preprocessor
    from tealeaves.corpus.readers import (
        RawDocuments,
        read_corpus,
        read_jsonl,
        read_stop_words,
        read_text_folder,
        read_token_lines,
    )
    from tealeaves.corpus.reuters import REUTERS_RECIPE, load_reuters_modapte, modapte_split, read_reuters
    from tealeaves.corpus.vocabulary import Vocabulary

__getattr__, __dir__, __all__ = lazy_package(__name__)
