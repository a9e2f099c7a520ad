"""Bulk import and export: the CSV format, reader, planner, concurrent runner, journal and report."""
