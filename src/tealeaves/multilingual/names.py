"""Names of the built-in multilingual references and languages (light: the CLI reads them at start-up)."""

#: Reference corpora :func:`tealeaves.multilingual.reference.named_reference` builds from ``$TEALEAVES_DATA``.
REFERENCES = ("bible", "flores", "ntrex", "tico19", "udhr")

#: The languages Hao, Boyd-Graber and Paul (2018) pair with English (English excluded; every
#: language tealeaves knows is in :data:`tealeaves.corpus.aligned.LANGUAGE_NAMES`).
HAO2018_LANGUAGES = ("ro", "sv", "am", "tl", "tr", "zh")


def __getattr__(name: str) -> object:
    """``LANGUAGES``: the deprecated old name of :data:`HAO2018_LANGUAGES` (one ``FutureWarning``)."""
    if name == "LANGUAGES":
        from tealeaves._params import warn_renamed

        warn_renamed("LANGUAGES", "HAO2018_LANGUAGES", __name__)
        return HAO2018_LANGUAGES
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
