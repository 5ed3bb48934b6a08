"""Single source of the package version (used in every score signature)."""

__version__ = "0.1.0"
