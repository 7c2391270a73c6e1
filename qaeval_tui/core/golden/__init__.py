"""The golden set: the models of golden files, strict loading, content hashes, case selection and
near-duplicate questions."""
