"""wfctl branches export (placeholder: registers nothing yet)."""
