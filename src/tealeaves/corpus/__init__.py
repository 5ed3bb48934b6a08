"""Corpora: vocabulary, the corpus type, preprocessing and readers.

Names are exported lazily (:mod:`tealeaves._lazy`): a submodule loads on first use.
"""

from typing import TYPE_CHECKING

from tealeaves._lazy import lazy_package

if TYPE_CHECKING:  # the table of exports, one line per public name (tealeaves._lazy)
    # isort: off
    from tealeaves.corpus.aligned import AlignedCorpus
    from tealeaves.corpus.aligned import default_preprocessor
    from tealeaves.corpus.aligned import normalize_language
    from tealeaves.corpus.corpus import Corpus
    from tealeaves.corpus.preprocess import LETTERS_PATTERN
    from tealeaves.corpus.preprocess import Preprocessor
    from tealeaves.corpus.readers import RawDocuments
    from tealeaves.corpus.readers import read_corpus
    from tealeaves.corpus.readers import read_jsonl
    from tealeaves.corpus.readers import read_stop_words
    from tealeaves.corpus.readers import read_text_folder
    from tealeaves.corpus.readers import read_token_lines
    from tealeaves.corpus.reuters import REUTERS_RECIPE
    from tealeaves.corpus.reuters import load_reuters_modapte
    from tealeaves.corpus.reuters import modapte_split
    from tealeaves.corpus.reuters import read_reuters
    from tealeaves.corpus.vocabulary import Vocabulary
    # isort: on

__getattr__, __dir__, __all__ = lazy_package(__name__)
