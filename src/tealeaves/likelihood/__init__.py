"""tealeaves.likelihood."""
