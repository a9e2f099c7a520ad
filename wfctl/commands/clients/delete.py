"""wfctl clients delete (placeholder: registers nothing yet)."""
