"""`wfctl sandbox certify`: an integrator's program graded from its own traffic (issue 48).

The program (any language, a black box) is run once per scenario (scenarios.py, the standard set in
standard.json) against a sandbox of that scenario's own: a fresh tenant with seed data, a quirk set and a
fault profile (stage.py injects the faults and keeps the trace of every exchange). The checks (checks.py)
read the trace and the final state and name the gap decision (G-number) each holds the program to; the
report (report.py) is the same bytes for the same --seed. runner.py ties them together.
"""
