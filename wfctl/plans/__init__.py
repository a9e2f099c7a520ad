"""A bulk run planned into a value: an import's planner and its plan, its scope, kinds and look-ups,
renames and new rows, and the per-site actions (rates, bans) and the prune a run is made of."""
