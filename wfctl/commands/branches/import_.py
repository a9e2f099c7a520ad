"""wfctl branches import (placeholder: registers nothing yet)."""
