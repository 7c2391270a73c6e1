"""The use cases the CLI and the TUI call: run from the config, gate against a baseline, queue a run
for review, agreement and calibration (and its artifact for the gate), label export, and the tables
other tools read (`tables`). Each takes typed arguments and returns a typed outcome; printing and
drawing it is the caller's job."""
