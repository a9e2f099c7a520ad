"""wfctl branches delete (placeholder: registers nothing yet)."""
