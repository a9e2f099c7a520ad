"""Hostile records, files and options: a sandbox of this package's own (its records have names no other
package's exact-output tests expect) and a CLI logged in to it, as in tests/resources."""

from __future__ import annotations

from tests.resources.conftest import service, tag, wf

__all__ = ["service", "tag", "wf"]
