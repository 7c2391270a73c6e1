"""Every screen as a scene, for the Pilot and snapshot tests and for `make screenshots`.

`registry` is the one list of them (`SHOTS`) that the snapshot tests and `make screenshots` both
read; `review` holds the steps of the `qaeval review` scenes, `oversight` those of the curation and
oversight screens, and `host` their private workspace. Every scene builds the real app through
its own factory (`create_app`), opened on the screen it shows. They are test scaffolding: the
package never imports them.
"""
