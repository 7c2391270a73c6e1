"""Blind review: review sessions and their view models, the review queue and its assignment, the
reviewer's ledger, and label files (reading, import, export,
other tools' formats, fit to the rubric)."""
