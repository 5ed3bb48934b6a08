"""The data registry shipped with tealeaves: every data set the reproductions and tests read.

``registry.json`` (written by ``scripts/build_data_registry.py`` from the reference data
folder) lists, for each data set, its folder under the data root, licence, publisher's page,
the archives it is served in, and every file with its size, SHA-256 and where its publisher
serves it: a single URL, a member of an archive, or nothing (``derived``: prepared for
tealeaves from the source; only a mirror serves such a file).  See docs/data.md.
"""

from __future__ import annotations

import difflib
import json
import os
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from tealeaves._docs import shared_doc
from tealeaves.errors import ParameterError


@dataclass(frozen=True)
class Archive:
    """An archive (``tar.gz`` or ``zip``) a publisher serves several files of a data set in.

    Parameters
    ----------
    id : str
        The archive's key in the registry.
    url : str
        Where the publisher serves it.
    format : str
        ``"tar.gz"`` or ``"zip"``.
    """

    id: str
    url: str
    format: str


@dataclass(frozen=True)
class FileEntry:
    """One file of a data set: path relative to the data set's folder, size, SHA-256, source.

    Parameters
    ----------
    path : str
        The path relative to the data set's folder.
    size : int
        Its size in bytes.
    sha256 : str
        Its SHA-256 hex digest.
    url : str or None, default None
        The URL the publisher serves it at, if single.
    archive : str or None, default None
        The id of the archive holding it, if any.
    member : str or None, default None
        Its name inside that archive.
    derived : str or None, default None
        How it was prepared for tealeaves from the source, when no publisher serves
        it (only a mirror does).
    """

    path: str
    size: int
    sha256: str
    url: str | None = None
    archive: str | None = None
    member: str | None = None
    derived: str | None = None


@dataclass(frozen=True, eq=False)
class Dataset:
    """A data set: a folder under the data root and the files it must hold.

    Parameters
    ----------
    name : str
        The data set's name (``tealeaves data list``).
    folder : str
        Its folder under the data root.
    title : str
        A one-line description.
    licence : str
        Its licence.
    homepage : str
        The publisher's page.
    archives : dict of str to Archive, default {}
        The archives its files are served in, by id.
    files : tuple of FileEntry, default ()
        Every file it must hold.
    """

    name: str
    folder: str
    title: str
    licence: str
    homepage: str
    archives: dict[str, Archive] = field(default_factory=dict)
    files: tuple[FileEntry, ...] = ()

    @property
    def size(self) -> int:
        """Total size of the data set's files in bytes."""
        return sum(f.size for f in self.files)

    def relative(self, data_path: str) -> str:
        """The path of ``data_path`` (relative to the data root) within this data set's folder.

        Parameters
        ----------
        data_path : str
            A path relative to the data root.

        Returns
        -------
        str
            The path within the folder, or ``""`` when it is not in this data set.
        """
        return data_path[len(self.folder) + 1:] if data_path.startswith(self.folder + "/") else ""

    @shared_doc
    def file(self, path: str) -> FileEntry | None:
        """The entry of ``path`` (relative to the data set's folder), or None.

        Parameters: %(dataset_path)s

        Returns
        -------
        FileEntry or None
            Its entry.
        """
        return next((f for f in self.files if f.path == path), None)

    def sources(self) -> list[str]:
        """The distinct URLs the publisher serves this data set from (archives first).

        Returns
        -------
        list of str
            The URLs.
        """
        urls = [a.url for a in self.archives.values()]
        urls += sorted({f.url for f in self.files if f.url})
        return urls

    def source_summary(self) -> str:
        """A short account of where the data set comes from, for messages and ``data list``.

        Returns
        -------
        str
            The archives, the common prefix of the file URLs and how many files only a mirror serves.
        """
        places = [a.url for a in self.archives.values()]
        urls = [f.url for f in self.files if f.url]
        if urls:
            common = os.path.commonprefix(urls)
            places.append(common[: common.rfind("/") + 1] if len(urls) > 1 else urls[0])
        derived = sum(f.derived is not None for f in self.files)
        if derived:
            places.append(f"{derived} of {len(self.files)} files prepared for tealeaves from "
                          f"{self.homepage}: a mirror only")
        return "; ".join(places)


def _parse(raw: dict) -> Dataset:
    archives = {k: Archive(k, v["url"], v["format"]) for k, v in raw.get("archives", {}).items()}
    files = tuple(FileEntry(**f) for f in raw["files"])
    return Dataset(raw["name"], raw["folder"], raw["title"], raw["licence"], raw["homepage"], archives, files)


@lru_cache(maxsize=1)
def datasets() -> dict[str, Dataset]:
    """All data sets of the shipped registry, by name.

    Returns
    -------
    dict of str to Dataset
        The data sets of ``registry.json`` (read once).
    """
    text = resources.files("tealeaves.data").joinpath("registry.json").read_text(encoding="utf-8")
    return {d.name: d for d in map(_parse, json.loads(text)["datasets"])}


def get(name: str) -> Dataset:
    """The data set called ``name`` (or whose folder is ``name``, e.g. ``parallel/udhr``).

    Parameters
    ----------
    name : str
        A data set's name or folder.

    Returns
    -------
    Dataset
        The data set.

    Raises
    ------
    ParameterError
        Naming the known data sets (and the closest match), for an unknown name.
    """
    table = datasets()
    key = str(name).strip().strip("/")
    if key in table:
        return table[key]
    by_folder = {d.folder: d for d in table.values()}
    if key in by_folder:
        return by_folder[key]
    close = difflib.get_close_matches(key, list(table) + list(by_folder), n=1)
    hint = f"did you mean '{close[0]}'? " if close else ""
    raise ParameterError(f"unknown data set '{name}'",
                         fix=f"{hint}known data sets: {', '.join(table)}; see 'tealeaves data list'")


def dataset_for(data_path: str) -> Dataset | None:
    """The data set whose folder holds ``data_path`` (relative to the data root), or None.

    Parameters
    ----------
    data_path : str
        A path relative to the data root, with ``/`` separators.

    Returns
    -------
    Dataset or None
        The data set.
    """
    for d in datasets().values():
        if data_path == d.folder or data_path.startswith(d.folder + "/"):
            return d
    return None
