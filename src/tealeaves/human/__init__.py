"""tealeaves.human."""
