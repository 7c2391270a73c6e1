"""The interchange models every layer above reads and writes: the golden case and its sources
(`golden`), what crosses to the system under test and to the judge (`run`: case view, system output,
citation, judge config, verdict), a reviewer's label and the rule a reviewer's name meets (`label`),
and a production miss (`miss`). It imports no other package of the core, only the shared modules
(`limits`, `hashing`)."""
