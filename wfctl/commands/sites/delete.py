"""wfctl sites delete (placeholder: registers nothing yet)."""
