"""Names of the built-in multilingual references and languages (light: the CLI reads them at start-up)."""

#: Reference corpora :func:`tealeaves.multilingual.reference.named_reference` builds from ``$TEALEAVES_DATA``.
REFERENCES = ("bible", "flores", "ntrex", "tico19", "udhr")

#: The languages Hao, Boyd-Graber and Paul (2018) pair with English.
LANGUAGES = ("ro", "sv", "am", "tl", "tr", "zh")
