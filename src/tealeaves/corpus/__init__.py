"""Corpora: vocabulary, the corpus type, preprocessing and readers."""

from tealeaves.corpus.aligned import AlignedCorpus, default_preprocessor, normalize_language
from tealeaves.corpus.corpus import Corpus
from tealeaves.corpus.preprocess import LETTERS_PATTERN, Preprocessor
from tealeaves.corpus.readers import (
    RawDocuments,
    read_corpus,
    read_jsonl,
    read_text_folder,
    read_token_lines,
)
from tealeaves.corpus.reuters import REUTERS_RECIPE, load_reuters_modapte, modapte_split, read_reuters
from tealeaves.corpus.vocabulary import Vocabulary

__all__ = [
    "Corpus",
    "Vocabulary",
    "Preprocessor",
    "LETTERS_PATTERN",
    "REUTERS_RECIPE",
    "load_reuters_modapte",
    "modapte_split",
    "read_reuters",
    "RawDocuments",
    "read_corpus",
    "read_jsonl",
    "read_text_folder",
    "read_token_lines",
    "AlignedCorpus",
    "default_preprocessor",
    "normalize_language",
]
