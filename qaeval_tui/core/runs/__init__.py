"""Stored runs to browse and compare: the listing, a run's case table, one case, and two runs side by side.

`qaeval runs`, `qaeval diff` and the curator app's runs screens all read these view models, so the
CLI and the screens cannot disagree on what a run holds.
"""
