"""wfctl branches create (placeholder: registers nothing yet)."""
