"""Every screen as a scene, for the Pilot and snapshot tests and for `make screenshots`.

`review` holds the scenes of `qaeval review` (built by the app's own factory), `oversight` the
curation and oversight screens, and `host` the app those run in on a private workspace. They are
test scaffolding: the package never imports them.
"""
