"""Streaming readers for large reference corpora (see ``docs/scale.md``).

:func:`~tealeaves.ingest.sources.iter_documents` yields ``(id, text)`` pairs,
one document at a time, from MediaWiki XML dumps, JSON Lines and Parquet
shards, folders of text files and one-document-per-line token files, each
possibly compressed with gzip, bz2 or xz; :mod:`tealeaves.ingest.aligned` reads a
user's aligned texts (JSON Lines tuples, parallel line files with a document-id
file) one tuple at a time; :mod:`tealeaves.ingest.langlinks` pairs Wikipedia
articles across languages into aligned tuples.
"""

from typing import TYPE_CHECKING

from tealeaves._lazy import lazy_package

if TYPE_CHECKING:  # the table of exports, one line per public name (tealeaves._lazy)
    # isort: off
    from tealeaves.ingest.sources import IngestStats
    from tealeaves.ingest.sources import detect_kind
    from tealeaves.ingest.sources import iter_documents
    # isort: on

__getattr__, __dir__, __all__ = lazy_package(__name__)
