"""tealeaves.coherence."""
