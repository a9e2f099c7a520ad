"""A plain `wfctl jq` command line, run without the app: no typer is imported (issue 44).

Start-up is what `wfctl jq` adds to jq most: building the Typer app takes 130 ms of CPU where this path
takes 56 (`wfctl jq -n 1`), a third of a run over 20,000 saved records (bench/jq.py). `asked` reads a command line made
of `jq`, then jq's own options (each flag alone or several in one word, `--indent N`, `--arg NAME VALUE` ...)
and words (the filter, the files), and nothing else; the run is wfctl.drivers.jqrun's, in the process's
one error boundary (wfctl.cmdline.main), as through the app. Anything else is left to the app, which reads it
as before: a root option or its WFCTL_* variable, -o, `--option=value`, `--`, -h, an unknown option, no
filter, an --indent that is not a number. `tests/query/test_jq_path.py` holds these tables to the command's
own options, and the answers of both ways to each other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wfctl.cmdline.argv import CommandLine
    from wfctl.drivers.jqrun import JqAsked

#: jq's flags: the word -> the field of JqAsked (wfctl.commands.jq's options)
FLAGS = {
    "--raw-output": "raw", "-r": "raw", "--join-output": "join", "-j": "join", "--ascii-output": "ascii",
    "-a": "ascii", "--compact-output": "compact", "-c": "compact", "--tab": "tab", "--sort-keys": "sort_keys",
    "-S": "sort_keys", "--null-input": "null_input", "-n": "null_input", "--slurp": "slurp", "-s": "slurp",
    "--raw-input": "raw_input", "-R": "raw_input", "--from-file": "from_file", "-f": "from_file", "--seq": "seq",
    "--stream": "stream", "--color-output": "color", "-C": "color", "--monochrome-output": "monochrome",
    "-M": "monochrome", "--exit-status": "exit_status", "-e": "exit_status", "--args": "positional_text",
    "--jsonargs": "positional_json",
}
#: jq's options that take values: the word -> (the field of JqAsked, how many words follow)
VALUES = {"--indent": ("indent", 1), "--arg": ("args", 2), "--argjson": ("argjson", 2),
          "--slurpfile": ("slurpfile", 2), "--rawfile": ("rawfile", 2)}
#: the root options' variables (wfctl.cmdline.app.root): the app reads them (and checks them) for any command
ROOT_VARIABLES = ("WFCTL_PROFILE", "WFCTL_BASE_URL", "WFCTL_CA_BUNDLE", "WFCTL_OUTPUT")


def asked(line: CommandLine) -> JqAsked | None:
    """What a plain `wfctl jq` command line asks, or None: the app reads the line."""
    words = line.words
    if words[:1] != ["jq"] or line.completion or line.help_asked or any(name in line.environ for name in ROOT_VARIABLES):
        return None
    given: dict[str, Any] = {}
    pairs: dict[str, list[tuple[str, str]]] = {name: [] for name, count in VALUES.values() if count == 2}
    positionals: list[str] = []
    index = 1
    while index < len(words):
        word = words[index]
        index += 1
        if word in VALUES:
            name, count = VALUES[word]
            taken = words[index:index + count]  # whatever they look like, as click takes an option's values
            index += count
            if len(taken) < count:
                return None
            if count == 2:
                pairs[name].append((taken[0], taken[1]))
                continue
            try:
                given[name] = int(taken[0])
            except ValueError:
                return None
        elif word in FLAGS:
            given[FLAGS[word]] = True
        elif len(word) > 1 and word[0] == "-" and (word[1] == "-" or word[1].isalpha()):  # an option to click
            if word[1] == "-" or not all(f"-{letter}" in FLAGS for letter in word[1:]):
                return None
            given.update((FLAGS[f"-{letter}"], True) for letter in word[1:])  # -rc: -r -c
        else:  # the filter, a file, `-`, or a word jq reads as no option (`-.a`, `-1`: wfctl.commands.jq)
            positionals.append(word)
    if not positionals:
        return None
    from wfctl.drivers.jqrun import JqAsked

    return JqAsked(expression=positionals[0], words=positionals[1:], args=tuple(pairs["args"]),
                   argjson=tuple(pairs["argjson"]), slurpfile=tuple(pairs["slurpfile"]),
                   rawfile=tuple(pairs["rawfile"]), **given)


def run(plain: JqAsked) -> int:
    """The run, as the app runs the command. The app's context (the root's options at their defaults) is
    made only when the run fails, for the error boundary, which reads it (errors are JSON when the profile
    says -o json and stderr is no terminal): the config layer it imports is a quarter of the start-up."""
    from wfctl.drivers import jqrun
    from wfctl.render.streams import IO

    try:
        jqrun.run(IO(), plain)
    except BaseException:
        from wfctl.context import AppContext, GlobalOptions

        AppContext(GlobalOptions())  # the context of the run, as the app's root callback makes it
        raise
    return 0
