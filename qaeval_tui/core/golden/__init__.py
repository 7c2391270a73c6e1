"""The golden set: strict loading of golden files (their models live in `core.models.golden`), case
selection and near-duplicate questions."""
