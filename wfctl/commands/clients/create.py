"""wfctl clients create (placeholder: registers nothing yet)."""
