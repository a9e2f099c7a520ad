"""`wfctl sandbox certify`: an integrator's program graded from its own traffic (issue 48).

The program (any language, a black box) is run once per scenario (scenarios.py, the standard set in
standard.json), each scenario a fresh tenant of one sandbox (target.py: the run's own, or a running one shared
by several runs) with seed data, its own quirk set and clock, and a fault profile (stage.py injects the faults
and keeps the trace of every exchange). The checks (checks.py) read the trace and the final state and name
the gap decision (G-number) each holds the program to; the report (report.py) is the same bytes for the same
--seed. runner.py ties them together.
"""
