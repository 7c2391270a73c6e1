"""Production misses from trace exports (OTLP with the GenAI conventions, OpenInference, Langfuse)."""
