"""wfctl clients update (placeholder: registers nothing yet)."""
