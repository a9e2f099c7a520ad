"""wfctl clients list (placeholder: registers nothing yet)."""
