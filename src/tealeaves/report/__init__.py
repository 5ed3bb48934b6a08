"""A readable report of a sweep's results store: one self-contained HTML file, PNG figures, JSON.

* :func:`~tealeaves.report.html.write_report` / :func:`~tealeaves.report.html.build_html`: the page
  (inline SVG figures, inline CSS and JavaScript, the numbers as embedded JSON; no network);
* :mod:`~tealeaves.report.figures`: the matplotlib figures, also written as PNG
  (``write_report(..., figures=DIR)``);
* :mod:`~tealeaves.report.story`: the K-selection story told from the numbers (used by the
  Reuters reproduction's report);
* :mod:`~tealeaves.report.hooks`: where stability per K and junk-topic flags plug in.
"""
