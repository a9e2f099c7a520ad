"""A command's run, on the CLI side: options checked, prompts, progress, the run called, its last line and
exit code. A verb module in wfctl.commands parses its options and calls one of these."""
