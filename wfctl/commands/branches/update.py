"""wfctl branches update (placeholder: registers nothing yet)."""
