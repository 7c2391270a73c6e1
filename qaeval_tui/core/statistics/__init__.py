"""Statistics over labels and verdicts: agreement between reviewers, judge calibration against
humans, intervals and sample sizes, the numpy tables they read, where they read from, their
Markdown and HTML reports, the dashboard's figures, and drift of run metrics over time."""
