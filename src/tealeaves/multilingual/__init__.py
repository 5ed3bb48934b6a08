"""tealeaves.multilingual."""
