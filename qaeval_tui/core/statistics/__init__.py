"""Statistics over labels and verdicts: agreement between reviewers, judge calibration against
humans, the numpy tables they read, where they read from, their Markdown and HTML reports, and the
calibration dashboard's figures."""
