"""wfctl sites import (placeholder: registers nothing yet)."""
