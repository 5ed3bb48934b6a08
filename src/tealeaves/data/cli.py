"""``tealeaves data list|fetch|verify``: the data sets tealeaves reads, where they are, and getting them."""

from __future__ import annotations

import sys

from tealeaves._cli_args import add_result_output, result_format
from tealeaves._cli_shared import add_command, add_command_group
from tealeaves._output import format_table

#: The public functions each command of this module calls (read by ``tests/test_naming.py``).
API = {
    "data list": (),
    "data fetch": ("tealeaves.data.fetch:fetch_dataset",),
    "data verify": (),
}


def register(subparsers) -> None:
    """Add ``data`` and its sub-commands to the top-level parser."""
    sub = add_command_group(subparsers, "data", "data_command", "ACTION",
                            [("which data sets are present, and where", "tealeaves data list"),
                             ("download Reuters-21578, checked by SHA-256",
                              "tealeaves data fetch reuters21578")],
                            help="list, fetch and verify the data sets (docs/data.md)")

    lst = add_command(sub, "list", _list, [("which data sets are present, and where", "tealeaves data list"),
                                           ("the same as JSON", "tealeaves data list --format json")],
                      help="each data set: present or not, where, size, licence, source")
    add_result_output(lst, "the table (CSV/TSV: one row per data set)")

    fetch = add_command(sub, "fetch", _fetch,
                        [("download Reuters-21578 into the user cache", "tealeaves data fetch reuters21578"),
                         ("every data set, from a mirror",
                          "tealeaves data fetch --all --mirror https://example.org/tealeaves-data")],
                        help="download data sets into the user cache, verified by SHA-256")
    fetch.add_argument("names", nargs="*", metavar="NAME", help="data sets (see 'tealeaves data list')")
    fetch.add_argument("--all", action="store_true", help="every data set of the registry")
    fetch.add_argument("--mirror", default=None, metavar="URL",
                       help="read every file from URL/<path under the data root> (default: "
                            "$TEALEAVES_DATA_MIRROR, else each publisher)")
    fetch.add_argument("--quiet", action="store_true", help="no progress output")

    verify = add_command(sub, "verify", _verify,
                         [("check the SHA-256 of every present file", "tealeaves data verify"),
                          ("only the MUSE dictionaries", "tealeaves data verify muse")],
                         help="check the SHA-256 of every present file against the registry")
    verify.add_argument("names", nargs="*", metavar="NAME", help="data sets (default: all)")


def _selected(names: list[str], every: bool = False) -> list:
    from tealeaves.data import registry
    from tealeaves.errors import ParameterError

    if every and names:
        raise ParameterError("give data set names or --all, not both", fix="drop one of them")
    if every or not names:
        return list(registry.datasets().values())
    return list(dict.fromkeys(registry.get(n) for n in names))


def _where(dataset, entry):
    from tealeaves.data import search_roots

    for label, root in zip(("TEALEAVES_DATA", "cache") if len(search_roots()) == 2 else ("cache",),
                           search_roots()):
        path = root / dataset.folder / entry.path
        if path.is_file():
            return label, root
    return None, None


def status_rows() -> list[dict]:
    """One row per data set: name, status (present / n of m files / missing), where, size, licence, source."""
    from tealeaves.data import registry
    from tealeaves.data.fetch import human_size

    rows = []
    for d in registry.datasets().values():
        places = [_where(d, f) for f in d.files]
        have = sum(p[0] is not None for p in places)
        where = sorted({f"{label} ({root})" for label, root in places if label})
        status = f"{have} of {len(d.files)} files" if have else "missing"
        status = "present" if have == len(d.files) else status
        rows.append({"name": d.name, "status": status, "where": "; ".join(where) or "-",
                     "size": human_size(d.size), "files": len(d.files), "licence": d.licence,
                     "source": d.source_summary()})
    return rows


def _list(args) -> int:
    from tealeaves._output import Result

    fmt = result_format(args)
    rows = status_rows()
    text = "\n".join([format_table(rows, ["name", "status", "size", "where"]), "",
                      *(f"{r['name']}: {r['licence']}\n    source: {r['source']}" for r in rows)])
    Result(rows, rows, text=text).emit(fmt, args.output, "-o table file")
    return 0


def _fetch(args) -> int:
    from tealeaves.data.fetch import FetchError, fetch_dataset, mirror_url
    from tealeaves.errors import ParameterError

    if not args.names and not args.all:
        raise ParameterError("no data set named", fix="give NAME ... or --all; see 'tealeaves data list'")
    mirror = mirror_url(args.mirror)
    stream = None if args.quiet else sys.stderr
    unavailable: list[str] = []
    for dataset in _selected(args.names, args.all):
        report = fetch_dataset(dataset, mirror=mirror, stream=stream)
        state = "complete" if not report.unavailable else f"{len(report.unavailable)} files need a mirror"
        print(f"{dataset.name}: {len(report.fetched)} fetched, {len(report.present)} already present "
              f"({state}); in {report.target}")
        if report.unavailable:
            paths = list(report.unavailable)
            more = f" and {len(paths) - 3} more" if len(paths) > 3 else ""
            unavailable.append(f"{dataset.name}: {len(paths)} files ({', '.join(paths[:3])}{more})")
    if unavailable:
        raise FetchError("files that no publisher serves could not be fetched: " + "; ".join(unavailable),
                         fix="they were prepared for tealeaves (docs/data.md): fetch them from a mirror "
                             "(--mirror URL / TEALEAVES_DATA_MIRROR) or set TEALEAVES_DATA to a folder "
                             "holding them")
    return 0


def _verify(args) -> int:
    from tealeaves.data.fetch import ChecksumError, sha256_of

    bad, checked, missing = [], 0, 0
    for dataset in _selected(args.names):
        for entry in dataset.files:
            label, root = _where(dataset, entry)
            if label is None:
                missing += 1
                continue
            path = root / dataset.folder / entry.path
            checked += 1
            if sha256_of(path) != entry.sha256:
                bad.append(str(path))
    print(f"{checked} files verified, {len(bad)} differ, {missing} missing")
    if bad:
        raise ChecksumError(f"{len(bad)} files differ from the registry: {', '.join(bad[:5])}",
                            fix="delete them from the cache and run 'tealeaves data fetch' again, or "
                                "replace them in your TEALEAVES_DATA folder")
    return 0
