"""typer commands: parse arguments, call the core, render with rich, set exit codes."""
