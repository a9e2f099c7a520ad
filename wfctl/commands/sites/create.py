"""wfctl sites create (placeholder: registers nothing yet)."""
