"""The CI gate: the committed baseline, the pass/block decision, its reports (JSON, Markdown, JUnit),
drift of run metrics over time, and which judge axes the gate may trust. `delta` compares one metric
with its baseline value."""
