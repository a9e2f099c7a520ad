"""Questions to the person at the terminal: on stderr, answered on stdin (or the terminal, for a secret).

Not click's prompt: it writes the space after the question to stdout (`input(" ")`), and stdout is for
data only (`wfctl login > out.txt` left a space in out.txt), and it loops forever on an empty answer
at end of input. Callers check `io.can_prompt` first.
"""

from __future__ import annotations

import sys

from wfctl.render.streams import IO


def confirm(question: str, io: IO | None = None) -> bool:
    """Ask `question` on stderr, read the answer from stdin (`io`'s, else the process's): True for y/yes.
    Ctrl-D counts as no; after either, the prompt's line is ended, so what follows starts on a line of its own."""
    io = io or IO()
    io.write_err(question)
    io.stderr.flush()
    line = io.stdin.readline()  # Ctrl-C: KeyboardInterrupt, which wfctl.cmdline.main ends with "\ninterrupted"
    if not line.endswith("\n"):  # Ctrl-D: the terminal echoed nothing, the cursor is still on the prompt
        io.write_err("\n")
    return bool(line.strip().lower() in ("y", "yes"))


def ask(question: str) -> str:
    """`question: ` on stderr; the answer, stripped. An empty answer asks again; Ctrl-D gives ""."""
    while True:
        IO.write_err(f"{question}: ")
        sys.stderr.flush()
        line = sys.stdin.readline()
        if not line.endswith("\n"):
            IO.write_err("\n")
            return line.strip()
        if line.strip():
            return line.strip()


def ask_secret(question: str, *, repeat: str | None = None) -> str:
    """`question: ` without echo (the terminal, else stderr/stdin); with `repeat`, asked a second time,
    and both must match (else they are asked again). An empty answer asks again; Ctrl-D gives ""."""
    while True:
        secret = _hidden(question)
        if secret is None:
            return ""
        if not secret:
            continue
        if repeat is None:
            return secret
        again = _hidden(repeat)
        if again is None:
            return ""
        if again == secret:
            return secret
        IO.write_err("the two passwords differ; again\n")
        sys.stderr.flush()


def _hidden(question: str) -> str | None:
    import getpass

    try:
        return getpass.getpass(f"{question}: ", stream=sys.stderr)
    except EOFError:
        IO.write_err("\n")
        return None
