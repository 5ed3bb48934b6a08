"""Building an aligned reference from a user's aligned texts: :func:`build_aligned_reference`.

The building is :func:`tealeaves.index.aligned.build_aligned_index`'s (the one aligned builder,
streamed and sharded); this module returns what it wrote as an
:class:`~tealeaves.multilingual.reference.AlignedReference`, the type the multilingual measures
read.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from tealeaves._params import renamed_parameters
from tealeaves.index.aligned import build_aligned_index
from tealeaves.ingest.sources import IngestStats
from tealeaves.multilingual.reference import AlignedReference


@renamed_parameters({"out": "output"})
def build_aligned_reference(inputs: Sequence[str | os.PathLike], output: str | os.PathLike,
                            **options) -> tuple[AlignedReference, IngestStats]:
    """Build the aligned reference folder ``output`` and load it back as an :class:`AlignedReference`.

    What ``tealeaves index build-aligned`` runs; the inputs, the options, the checks and the folder
    are those of :func:`tealeaves.index.aligned.build_aligned_index`, which builds.

    Parameters
    ----------
    inputs, output
        The tuple shards (or none) and the folder, as in
        :func:`~tealeaves.index.aligned.build_aligned_index`.
    **options
        Its keyword arguments
        (``languages``, ``lang_files``, ``doc_ids``, ``links``, ``langlinks``, ``dumps``, ``name``,
        ``encoding``, ``memory``, ``chunk_tokens``, ``tuples_per_shard``, ``executor``,
        ``progress``).

    Returns
    -------
    reference : AlignedReference
        The saved reference, loaded back.
    stats : IngestStats
        What was read and skipped.
    """
    index, name, stats = build_aligned_index(inputs, output, **options)
    return AlignedReference.from_index(index, name), stats
