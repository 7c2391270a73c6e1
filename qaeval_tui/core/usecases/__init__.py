"""The use cases the CLI and the TUI call: the run a config describes (`configured`, with the system
served over HTTP in `http_adapter`), run from the config, gate against a baseline, queue a run for
review, prepare a store for a reviewer (`prepare`), the calibration dashboard (`dashboard`, composed
of statistics and curation), agreement and calibration (and its artifact for the gate), label export,
and the tables other tools read (`tables`). Each takes typed arguments and returns a typed outcome; printing and
drawing it is the caller's job."""
