"""The CI gate: the committed baseline, the pass/block decision, its reports (JSON, Markdown, JUnit),
the calibration artifact (`calibration_file`) and which judge axes
the gate may trust by it (`trust`). `delta` compares one metric with its baseline value."""
