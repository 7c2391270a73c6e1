"""The review TUI (Textual). Nothing in qaeval_tui.core imports this package."""
