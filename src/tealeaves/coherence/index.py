"""Deprecated: the reference index moved to :mod:`tealeaves.index`.

This module only re-exports the names it used to define, so that old imports keep working;
import them from :mod:`tealeaves.index` (or its submodules) instead.  It will be removed in a
later release.
"""

from tealeaves.index.aligned import AlignedIndex
from tealeaves.index.build import build_index, index_from_token_lists
from tealeaves.index.cache import verified_cache_file
from tealeaves.index.format import ARRAY_DTYPES, ARRAY_NAMES, FORMAT_VERSION, MAGIC, IndexWriter, read_header
from tealeaves.index.manifest import check_manifest, file_digest, manifest_entry
from tealeaves.index.reference import ReferenceIndex, open_unchecked, tokenization_mismatch

__all__ = ["ARRAY_DTYPES", "ARRAY_NAMES", "AlignedIndex", "FORMAT_VERSION", "IndexWriter", "MAGIC",
           "ReferenceIndex", "build_index", "check_manifest", "file_digest", "index_from_token_lists",
           "manifest_entry", "open_unchecked", "read_header", "tokenization_mismatch", "verified_cache_file"]
