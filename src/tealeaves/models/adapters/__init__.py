"""Adapters that turn other toolkits' models and output files into tealeaves models.

(Placeholder written by the ``files`` branch so that ``adapters.mallet``,
``adapters.topic_files`` and ``adapters.paths`` can be imported; the
``adapters`` branch owns this module and its ``load_model``.)
"""
