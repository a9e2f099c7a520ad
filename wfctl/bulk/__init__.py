"""Bulk import and export: the CSV format, reader, planner, the one executor of a run's actions, journal and report."""
