"""wfctl branches list (placeholder: registers nothing yet)."""
