"""The golden set: strict loading of golden files, content hashes, case selection and near-duplicate questions."""
