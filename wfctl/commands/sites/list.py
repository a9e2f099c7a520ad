"""wfctl sites list (placeholder: registers nothing yet)."""
