"""A readable report of a results store: one self-contained HTML file, PNG figures, JSON.

* :func:`~tealeaves.report.html.write_report` / :func:`~tealeaves.report.html.build_html`: the page
  (inline SVG figures, inline CSS and JavaScript, the numbers as embedded JSON; no network);
* :mod:`~tealeaves.report.verdict`: "which K?" and "which model?" answered in sentences computed
  from the store, each with the numbers it cites and the chart it rests on;
* :mod:`~tealeaves.report.explorer`: the topic explorer's data (intertopic distance map, relevance)
  and the two-model view;
* :mod:`~tealeaves.report.settings`: what was fitted, in words;
* :mod:`~tealeaves.report.figures`: the matplotlib figures, also written as PNG
  (``write_report(..., figures=DIR)``);
* :mod:`~tealeaves.report.story`: the K-selection story told from the numbers (used by the
  Reuters reproduction's report);
* :mod:`~tealeaves.report.hooks`: stability per configuration and the flags that need several runs.
"""
