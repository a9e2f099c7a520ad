"""wfctl sites get (placeholder: registers nothing yet)."""
