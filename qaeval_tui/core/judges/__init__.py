"""Model judges (DESIGN §3.3): OpenAI-compatible and Anthropic clients behind the `JudgeClient` protocol.

`prompt` renders the versioned prompt and validates a reply strictly (every axis once, an integer on
its scale, evidence found verbatim in the sources or the answer); `calls` runs one request with
retries, timing every attempt; `providers` speaks each provider's protocol over one pooled async HTTP
client (imported only when such a judge is built); `factory` builds the configured judge, refusing
missing credentials first.
"""
