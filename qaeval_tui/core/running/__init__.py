"""Running a suite: the adapter and judge protocols, loading the run a config describes, the runner
and its results, the deterministic checks, trajectory scoring, lexical matching and the metrics."""
