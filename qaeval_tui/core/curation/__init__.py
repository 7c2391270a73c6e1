"""Curation: the production-miss inbox, promoting a miss into a golden case (the draft and the
promotion), adjudicating reviewer disagreements, and the item dossier a curator reads."""
