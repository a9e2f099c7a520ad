"""wfctl: command-line administration for the Workforce Agency Management Service."""

__version__ = "0.1.0"
