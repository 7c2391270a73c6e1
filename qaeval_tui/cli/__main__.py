from qaeval_tui.cli.main import run

run()
