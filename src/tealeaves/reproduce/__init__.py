"""Reproductions of the article's worked examples and tables (``tealeaves reproduce ...``)."""
