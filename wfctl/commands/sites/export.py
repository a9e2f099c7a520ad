"""wfctl sites export (placeholder: registers nothing yet)."""
