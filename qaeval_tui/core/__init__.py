"""Headless core: models, golden sets, store, scoring, statistics, gate.

Imports neither textual nor rich (a test checks this in a fresh interpreter).
"""
