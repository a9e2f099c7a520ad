"""Entry point: the fast paths, then the Typer app inside the one error boundary."""

from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:
        # Answered before Typer loads: start-up is a feature (see bench/startup.py).
        from wfctl import __version__

        sys.stdout.write(f"wfctl {__version__}\n")
        return 0
    from wfctl.cmdline import startup
    from wfctl.cmdline.argv import CommandLine

    line = CommandLine(args)  # the one parse: the fast path, the app, the hoisting and the JSON errors read it
    answer = startup.fast_answer(line)  # --help and Tab presses, from the index (wfctl.cmdline.helpindex): no typer
    if answer is not None:
        text, code = answer
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:  # `wfctl --help | head -1`: the reader left
            _silence_stdout()
        return code
    try:
        return _run(line)
    finally:
        if line.fast_request:
            from wfctl.cmdline import helpindex

            if helpindex.load_index() is None:
                from wfctl.cmdline.indexbuilder import write_index

                write_index()  # the first such run after an install or an edit


def _run(line) -> int:  # a wfctl.cmdline.argv.CommandLine; no import of typing for `wfctl --version`
    if not line.words:
        from wfctl.cmdline.argv import CommandLine

        line = CommandLine(["--help"], line.environ)  # a bare `wfctl` is a request for help (exit 0), as for gh

    if os.environ.get("_WFCTL_COMPLETE"):  # the shell asks for completions (see `wfctl completion`)
        from wfctl.commands.completion import register_shells

        register_shells()
    from wfctl.errors import report
    from wfctl.exit_codes import ExitCode

    walk = None  # the words walked over the app (wfctl.cmdline.argv.Walk)
    plain_jq = None
    if line.words[0] == "jq":
        from wfctl.cmdline import jqpath

        plain_jq = jqpath.asked(line)  # a plain `wfctl jq` command line runs without the app (typer)
    try:
        if plain_jq is not None:
            rv = jqpath.run(plain_jq)
        else:
            command = _command(line)
            walk = line.walk(command)
            rv = command.main(args=walk.hoisted_args(), prog_name="wfctl", standalone_mode=False)
    except Exception as exc:
        if "typer" in sys.modules:  # else neither click nor typer raised it
            from typer.exceptions import Abort  # typer 0.29's vendored click raises typer's own Abort

            from wfctl.cmdline.typercompat import click_exceptions

            if isinstance(exc, click_exceptions.ClickException):  # usage errors: click's words, wfctl's shape
                return _usage_error(exc, walk)
            if isinstance(exc, Abort):
                sys.stderr.write("\ninterrupted\n")
                return int(ExitCode.INTERRUPTED)
        if isinstance(exc, BrokenPipeError):
            # `wfctl ... | head`: the reader left; not an error of ours.
            _silence_stdout()
            return 0
        from wfctl import context

        ctx = context.current()
        # a command's own -o may not have reached the context yet (`branches import FILE -o json` whose
        # file cannot be read): the command line says it
        json_mode = ctx.json_errors() if ctx is not None and ctx.output_flag else _json_errors_requested(walk)
        return report(exc, json_mode=json_mode, stream=sys.stderr)
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return int(ExitCode.INTERRUPTED)
    except SystemExit:
        if not _reader_left():
            raise
        _silence_stdout()
        return 0
    finally:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _silence_stdout()
    if rv == ExitCode.INTERRUPTED:
        # typer turns a KeyboardInterrupt (Ctrl-C at a prompt) into a silent exit 130: end the line the
        # terminal left after "^C", so the shell's prompt starts on a line of its own
        sys.stderr.write("\ninterrupted\n")
        sys.stderr.flush()
    return rv if isinstance(rv, int) else 0


def _usage_error(exc: BaseException, walk) -> int:  # a wfctl.cmdline.argv.Walk, or None
    """A usage error of the command line (click's message): under -o json/jsonl the one JSON error shape,
    else click's usage and hint lines, then `error: <message>` (lower case, as every wfctl error)."""
    import json

    from wfctl.errors import usage_envelope

    message = exc.format_message()  # type: ignore[attr-defined]  # a click exception
    context = getattr(exc, "ctx", None)
    usage = context.get_usage() if context is not None else None
    if _json_errors_requested(walk):
        sys.stderr.write(json.dumps(usage_envelope(message, usage)) + "\n")
    elif getattr(exc, "one_line", False):
        exc.show()  # type: ignore[attr-defined]  # wfctl's one-line bad option value (wfctl.cmdline.coercion)
    else:
        if context is not None:
            hint = ""
            if context.command.get_help_option(context) is not None:
                hint = f"Try '{context.command_path} {context.help_option_names[0]}' for help.\n"
            sys.stderr.write(f"{usage}\n{hint}\n")
        sys.stderr.write(f"error: {message}\n")
    sys.stderr.flush()
    return int(exc.exit_code)  # type: ignore[attr-defined]


def _json_errors_requested(walk) -> bool:  # a wfctl.cmdline.argv.Walk, or None
    """Whether errors are JSON for this command line, read from the walk of its words (a usage error may
    stop the parse before -o reached the context): the last -o/--output given, else the context's rule
    (WFCTL_OUTPUT or the profile's output, when stderr is not a terminal)."""
    from wfctl.render.output import is_machine

    given = walk.output if walk is not None else None
    if given is not None:
        return is_machine(given)
    from wfctl import context

    ctx = context.current()
    if ctx is not None:
        return ctx.json_errors()
    return is_machine(os.environ.get("WFCTL_OUTPUT", "")) and not context.IO().stderr_is_tty


def _command(line=None):  # no annotation: it would need typing, and `wfctl --version` imports nothing
    """The click command of the Typer app for `line`, or with every command (wfctl.cmdline.app.root_command)."""
    from wfctl.cmdline.app import root_command

    return root_command(line)
def _reader_left() -> bool:
    """Whether typer ended the run because stdout's reader left: it turns a BrokenPipeError met inside a
    command into sys.exit(1), with stdout and stderr wrapped to ignore EPIPE. Unwrap them: the exit is
    ours to decide, and a reader leaving is not a failure."""
    from wfctl.cmdline.typercompat import PacifyFlushWrapper

    if not isinstance(sys.stdout, PacifyFlushWrapper):
        return False
    sys.stdout = sys.stdout.wrapped
    if isinstance(sys.stderr, PacifyFlushWrapper):
        sys.stderr = sys.stderr.wrapped
    return True


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the flush of what is still buffered (ours now, the interpreter's
    at exit) cannot fail again (the recipe in Python's `signal` docs, on SIGPIPE)."""
    import os

    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError):  # not a real file (a test's StringIO): nothing is flushed to a pipe
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
