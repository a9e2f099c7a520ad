"""wfctl branches get (placeholder: registers nothing yet)."""
