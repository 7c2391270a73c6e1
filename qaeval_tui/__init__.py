"""qaeval_tui: keep a retrieval-augmented QA system's evaluation honest."""

__version__ = "0.1.0"
