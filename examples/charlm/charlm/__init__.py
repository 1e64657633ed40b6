"""A small character-level language model: the project's own package (model and data)."""
