"""wfctl clients import (placeholder: registers nothing yet)."""
