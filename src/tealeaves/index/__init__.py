"""The reference index: its file format, checks, builders, cache and commands.

A reference index holds the postings (documents and positions) of every word of a reference
corpus; coherence (:mod:`tealeaves.coherence`) and the multilingual measures count co-occurrence
from it.  This package owns its whole life-cycle:

* :mod:`~tealeaves.index.format` -- the file format (prefix, JSON header, arrays) and writers;
* :mod:`~tealeaves.index.reference` -- :class:`ReferenceIndex` and its loader, which checks every
  file (:mod:`~tealeaves.index._checks`) before a compiled kernel reads it;
* :mod:`~tealeaves.index.build` -- :func:`build_index` and :func:`index_from_token_lists`, in
  memory; :mod:`~tealeaves.index.streaming` -- :func:`build_streaming`, the same index from files
  in bounded memory, shard by shard (:mod:`~tealeaves.index.merge` merges the partial indexes;
  :mod:`~tealeaves.index.memory` sizes them; :mod:`~tealeaves.index.dask` runs the shards on Dask);
* :mod:`~tealeaves.index.aligned` -- :class:`AlignedIndex` (one index per language over shared
  tuple ids), its saved folder (:func:`load_aligned_index`) and :func:`build_aligned_index`, the
  one aligned-reference builder;
* :mod:`~tealeaves.index.cache` -- the verified-checksum cache; :mod:`~tealeaves.index.manifest`
  -- shard manifests;
* :mod:`~tealeaves.index.cli` -- ``tealeaves index build|info|build-aligned``.

Names are exported lazily (:mod:`tealeaves._lazy`): a submodule loads on first use.
"""

from typing import TYPE_CHECKING

from tealeaves._lazy import lazy_package

if TYPE_CHECKING:  # the table of exports, one line per public name (tealeaves._lazy)
    # isort: off
    from tealeaves.index.aligned import AlignedIndex
    from tealeaves.index.aligned import build_aligned_index
    from tealeaves.index.aligned import load_aligned_index
    from tealeaves.index.build import build_index
    from tealeaves.index.build import index_from_token_lists
    from tealeaves.index.cache import verified_cache_file
    from tealeaves.index.dask import dask_client
    from tealeaves.index.dask import dask_executor
    from tealeaves.index.format import ARRAY_NAMES
    from tealeaves.index.format import FORMAT_VERSION
    from tealeaves.index.format import MAGIC
    from tealeaves.index.manifest import check_manifest
    from tealeaves.index.memory import parse_memory
    from tealeaves.index.reference import ReferenceIndex
    from tealeaves.index.reference import n_windows
    from tealeaves.index.reference import tokenization_mismatch
    from tealeaves.index.streaming import build_streaming
    # isort: on

__getattr__, __dir__, __all__ = lazy_package(__name__)
