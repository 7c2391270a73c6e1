"""Curation: the production-miss inbox, promoting a miss into a golden case (the draft, the golden
target and the promotion) or rejecting it, adjudicating reviewer disagreements, and the item
dossier a curator reads."""
