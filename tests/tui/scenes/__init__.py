"""Every screen as a scene, for the Pilot and snapshot tests and for `make screenshots`.

`review` holds the scenes of `qaeval review`, `oversight` the curation and oversight screens, and
`host` their private workspace; every scene builds the real app through its own factory
(`create_app`), opened on the screen it shows. They are test scaffolding: the package never
imports them.
"""
