"""Curation: the production-miss inbox, promoting a miss into a golden case (the draft, the golden
target and the promotion) or rejecting it, adjudicating reviewer disagreements, and the item
dossier a curator reads; `traces` turns production's trace exports (OTLP, OpenInference, Langfuse,
or OTLP/HTTP as it is sent) into inbox misses."""
