"""Running a suite: the adapter and judge protocols, the runner and its results, the deterministic
checks, trajectory scoring, lexical matching and the metrics."""
