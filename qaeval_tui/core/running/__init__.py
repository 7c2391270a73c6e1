"""Running a suite: the adapter protocol, the runner, the deterministic checks, the judge protocol,
trajectory scoring, lexical matching and the metrics of the scoreboard."""
