"""wfctl clients export (placeholder: registers nothing yet)."""
