"""wfctl clients get (placeholder: registers nothing yet)."""
