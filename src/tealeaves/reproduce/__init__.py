"""tealeaves.reproduce."""
