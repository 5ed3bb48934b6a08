"""``to_dict`` for result dataclasses, written once: the fields (or a chosen list) as a JSON-ready dict."""

from __future__ import annotations


class RecordDict:
    """Mixin of a result dataclass: :meth:`to_dict` gives its fields as a dictionary.

    A class lists the entries in ``_DICT_KEYS`` (names of fields or properties, in order) when they
    are not simply every field; a ``signature`` entry is given as its text.
    """

    #: The entries of :meth:`to_dict`, in order (empty: every field, in declaration order).
    _DICT_KEYS = ()

    def to_dict(self) -> dict:
        """The record as a JSON-ready dictionary.

        Returns
        -------
        dict
            The entries of ``_DICT_KEYS`` (every field when it is empty), the ``signature`` as a string.
        """
        out = {key: getattr(self, key) for key in self._DICT_KEYS or tuple(self.__dict__)}
        if "signature" in out:
            out["signature"] = str(out["signature"])
        return out
