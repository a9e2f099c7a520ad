"""A file, or another profile, against the service: drift within a scope, and profile to profile."""
