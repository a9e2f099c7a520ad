"""The bans tests use the matrix's deployments (a sandbox, and one playing `put-clears`)."""

from tests.matrix.conftest import deployment, deployments, run, sdk  # noqa: F401
