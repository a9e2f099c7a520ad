"""`wfctl <group> edit`: the YAML buffer and its check, where it is kept, and an edit of many sites as a
run of the one executor."""
