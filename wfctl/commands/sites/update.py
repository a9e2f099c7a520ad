"""wfctl sites update (placeholder: registers nothing yet)."""
