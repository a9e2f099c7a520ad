"""What a plan, a journal or a diff says, to a person or a program (no row checked again)."""
