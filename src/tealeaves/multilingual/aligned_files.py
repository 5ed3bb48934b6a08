"""Deprecated home of the aligned-input readers and the saved aligned reference folder.

The readers of a user's aligned texts (JSON Lines tuples, parallel line files with a document-id
file, :class:`TupleSummary`, ...) live in :mod:`tealeaves.ingest.aligned`; the saved folder's
format (manifest, :func:`write_manifest`, :func:`is_aligned_reference`) in
:mod:`tealeaves.index.aligned`; :func:`save_aligned_reference` and :func:`load_aligned_reference`
in :mod:`tealeaves.multilingual.reference`, with the
:class:`~tealeaves.multilingual.reference.AlignedReference` they save and load.  Every name is
still importable from here.
"""

from tealeaves.index.aligned import ALIGNED_FORMAT as FORMAT  # noqa: F401 (re-exported for old imports)
from tealeaves.index.aligned import ALIGNED_FORMAT_VERSION as FORMAT_VERSION  # noqa: F401
from tealeaves.index.aligned import ALIGNED_MANIFEST as MANIFEST  # noqa: F401
from tealeaves.index.aligned import is_aligned_reference, write_manifest  # noqa: F401
from tealeaves.ingest.aligned import (  # noqa: F401
    JSONL_EXAMPLE,
    TupleSummary,
    check_input_kind,
    check_tuples,
    iter_jsonl_tuples,
    iter_parallel_files,
    parse_lang_files,
    read_aligned_input,
    read_jsonl_tuples,
    read_parallel_files,
    split_language_list,
)
from tealeaves.multilingual.reference import load_aligned_reference, save_aligned_reference  # noqa: F401
