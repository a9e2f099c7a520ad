"""The command line, parsed once (stdlib only: the fast path reads it before anything of Typer loads).

`CommandLine` holds a run's words and what they ask without knowing the commands (help, a completion:
wfctl.cmdline.startup decides on these before it loads the index; a bare `--version` is answered by wfctl.cmdline.main
before this module loads). `CommandLine.walk(tree)` reads the words over a command tree, once a tree, the
way click parses them: the command path, the options given at each level (and which of them are the
root's, given after the command), the words after `--`, the output format asked for, and what click would
read differently from this walk (`problems`). Every reader reads that one walk: the help and completion
answers from the index (wfctl.cmdline.helpindex, wfctl.cmdline.completeanswer), the choice of the group to build and the
global options moved in front of the command (wfctl.cmdline.app), and the JSON-error decision (wfctl.cmdline.main).

A tree is the help index's (wfctl.cmdline.helpindex: a node is {"params", "commands", "help_opts"}, an option
{"kind", "name", "opts", "secondary", "takes_value", "nargs", "callback", ...}), or a click command, read
through `ClickNode` in the same shape (duck-typed: this module imports no click).
"""

from __future__ import annotations

import os
import typing
from typing import Any

COMPLETE_VAR = "_WFCTL_COMPLETE"
HELP_WORDS = ("-h", "--help")

#: Why click would read a word otherwise than the walk does (`Walk.problems`).
NO_SUCH_OPTION = "no such option"
NO_SUCH_COMMAND = "no such command"
FLAG_WITH_VALUE = "a flag given a value"
JOINED_FLAGS = "several flags in one word"
VALUE_LIKE_OPTION = "a value that looks like an option"  # click takes it; a completion cannot say so
MISPLACED = "a global option after a command"  # after a group: click refuses it; after a command: hoisted


class CommandLine:
    """A run's words (`args`, without the program name) and its environment."""

    def __init__(self, args: typing.Sequence[str], environ: typing.Mapping[str, str] | None = None) -> None:
        self.words = list(args)
        self.environ = os.environ if environ is None else environ
        self.dashes = self.words.index("--") if "--" in self.words else None
        before = self.words if self.dashes is None else self.words[: self.dashes]
        #: `wfctl`, or -h/--help before `--` (a value of an option too: the walk tells which)
        self.help_asked = not self.words or any(word in HELP_WORDS for word in before)
        #: the shell's completion request (`complete_bash`, ...), or None
        self.completion = self.environ.get(COMPLETE_VAR) or None
        self._walks: dict[int, tuple[Any, Walk]] = {}

    @property
    def fast_request(self) -> bool:
        """Whether the help index may answer it (a help request or a Tab press)."""
        return bool(self.completion) or self.help_asked

    @property
    def after_dashes(self) -> list[str]:
        return [] if self.dashes is None else self.words[self.dashes + 1:]

    def walk(self, tree: Any) -> Walk:
        """The words read over `tree` (an index tree, or a click command), once a tree."""
        found = self._walks.get(id(tree))
        if found is None:
            node = tree if isinstance(tree, dict) else ClickNode(tree)
            found = self._walks[id(tree)] = (tree, _walk(node, self.words))
        return found[1]


class Given:
    """An option given: the index of its word, the level whose option it is (0: the root), its value
    (None for a flag), and whether it is the root's, given after a command (moved in front of it)."""

    __slots__ = ("depth", "hoisted", "index", "option", "value")

    def __init__(self, index: int, depth: int, option: dict[str, Any], value: str | None, hoisted: bool) -> None:
        self.index, self.depth, self.option, self.value, self.hoisted = index, depth, option, value, hoisted


class Level:
    """A command of the path (the root first): its node, its option values and positional values given,
    the names of its options given and how many positional words it was given."""

    __slots__ = ("given", "node", "positionals", "values")

    def __init__(self, node: Any) -> None:
        self.node = node
        self.values: dict[str, Any] = {}
        self.given: set[str] = set()
        self.positionals = 0


class Walk:
    """The words read over a tree, as click reads them."""

    def __init__(self, words: list[str], root: Level) -> None:
        self.words = words
        self.levels = [root]
        self.path: list[str] = []
        #: the first word of the root that is neither an option nor its value: the command asked for
        self.command_word: str | None = None
        self.options: list[Given] = []
        #: indices of the words (options and their values) of the root given after a command
        self.hoisted: list[int] = []
        #: the first help word (-h/--help of its command) and the depth of that command, or None
        self.help_at: int | None = None
        self.help_depth = 0
        #: the option still waiting for values when the words ran out, and how many it still takes
        self.pending: dict[str, Any] | None = None
        self.left = 0
        self.dashes: int | None = None
        #: the last -o/--output given on the command line (the root's or the command's own)
        self.output: str | None = None
        #: (index of a word, why click would read it otherwise than this walk: NO_SUCH_OPTION, ...)
        self.problems: list[tuple[int, str]] = []

    @property
    def node(self) -> Any:
        return self.levels[-1].node

    def hoisted_args(self) -> list[str]:
        """The words with the root's options given after the command (`wfctl branches list -v -p staging`)
        moved in front of it, where click reads them, as gh and kubectl take them anywhere. A command's own
        options (and their values), its arguments and everything after `--` stay where they are."""
        moved = set(self.hoisted)
        return [*(self.words[i] for i in self.hoisted),
                *(word for i, word in enumerate(self.words) if i not in moved)]


def find_option(node: Any, name: str) -> dict[str, Any] | None:
    """The option of a node that `name` (`--output`, `-o`, a flag's `--no-...`) names, or None."""
    for param in node["params"]:
        if param["kind"] == "option" and (name in param["opts"] or name in param["secondary"]):
            return param
    return None


def param_spec(param: Any) -> dict[str, Any]:
    """A click parameter as the walk reads it (the index holds more of it: wfctl.cmdline.indexbuilder)."""
    option = param.param_type_name == "option"
    envvar = param.envvar if isinstance(param.envvar, list | tuple) else [param.envvar] if param.envvar else []
    return {
        "kind": "option" if option else "argument",
        "name": param.name,
        "opts": list(param.opts),
        "secondary": list(param.secondary_opts),
        "takes_value": option and not (param.is_flag or param.count),
        "multiple": bool(param.multiple),
        "nargs": param.nargs,
        "envvar": list(envvar),
        "callback": param.callback is not None,
    }


class ClickNode:
    """A click command read as an index node (its parameters converted on first use)."""

    def __init__(self, command: Any) -> None:
        self._command = command
        self._fields: dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        if key not in self._fields:
            if key == "params":
                self._fields[key] = [param_spec(param) for param in self._command.params]
            elif key == "commands":
                commands = getattr(self._command, "commands", None)
                self._fields[key] = None if not commands else {
                    name: ClickNode(sub) for name, sub in commands.items()}
            else:
                raise KeyError(key)
        return self._fields[key]

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default


def _walk(tree: Any, words: list[str]) -> Walk:
    walk = Walk(words, Level(tree))
    reader = _Reader(walk)
    for index, word in enumerate(words):
        if walk.pending is not None:  # click takes the next word as the value, whatever it looks like
            reader.value(index, word)
        elif word == "--":
            walk.dashes = index
            break
        elif word.startswith("-") and word != "-":
            reader.option(index, word)
        else:
            reader.positional(index, word)
    return walk


class _Reader:
    """The walk's reading of one word after another (click's parser, level by level)."""

    def __init__(self, walk: Walk) -> None:
        self.walk = walk
        self.root = self.level = walk.levels[0]
        self.pending_at, self.pending_hoisted = self.root, False

    def value(self, index: int, word: str) -> None:
        walk = self.walk
        if word.startswith("-") and word != "-":
            walk.problems.append((index, VALUE_LIKE_OPTION))
        _value(walk, self.pending_at, walk.pending, word)  # type: ignore[arg-type]  # pending: not None
        walk.options[-1].value = word
        if self.pending_hoisted:
            walk.hoisted.append(index)
        walk.left -= 1
        if walk.left <= 0:
            walk.pending = None

    def option(self, index: int, word: str) -> None:
        walk, level = self.walk, self.level
        if walk.help_at is None and word in level.node.get("help_opts", ()):
            walk.help_at, walk.help_depth = index, len(walk.path)
        option, value, problem = _lookup(level.node, word)
        owner = level
        if option is None and level is not self.root:  # the root's option after a command
            option, value, problem = _lookup(self.root.node, word)
            owner = self.root
        if option is None:
            walk.problems.append((index, problem or NO_SUCH_OPTION))
            return
        hoisted = owner is not level and level.node["commands"] is None and (
            problem is None or (problem == FLAG_WITH_VALUE and word.startswith("--")))
        if hoisted:
            walk.hoisted.append(index)  # a problem too: click, at the root, says what is wrong with it
        walk.problems += [(index, why) for why in (MISPLACED if owner is not level else None, problem) if why]
        if problem is not None:
            return
        walk.options.append(Given(index, walk.levels.index(owner), option, value, hoisted))
        owner.given.add(option["name"])
        if value is not None:
            _value(walk, owner, option, value)
        elif option["takes_value"]:
            walk.pending, walk.left = option, max(1, option.get("nargs") or 1)
            self.pending_at, self.pending_hoisted = owner, hoisted

    def positional(self, index: int, word: str) -> None:
        walk, level = self.walk, self.level
        if level is self.root and walk.command_word is None:
            walk.command_word = word
        commands = level.node["commands"]
        if commands is not None and level.positionals == 0:
            if word in commands:
                self.level = Level(commands[word])
                walk.levels.append(self.level)
                walk.path.append(word)
                return
            walk.problems.append((index, NO_SUCH_COMMAND))
        arguments = [p for p in level.node["params"] if p["kind"] == "argument"]
        if level.positionals < len(arguments) and arguments[level.positionals]["nargs"] == 1:
            level.values[arguments[level.positionals]["name"]] = word  # as click's ctx.params
        level.positionals += 1


def _lookup(node: Any, word: str) -> tuple[dict[str, Any] | None, str | None, str | None]:
    """(the option `word` names at `node`, the value it carries, why click would read it otherwise)."""
    name, eq, value = word.partition("=")
    option = find_option(node, name)
    if option is not None:
        if eq and not option["takes_value"]:
            return option, None, FLAG_WITH_VALUE
        return option, (value if eq else None), None
    if not eq and not word.startswith("--") and len(word) > 2:
        option = find_option(node, word[:2])  # -ojson
        if option is not None:
            return (option, None, JOINED_FLAGS) if not option["takes_value"] else (option, word[2:], None)
    return None, None, NO_SUCH_OPTION


def _value(walk: Walk, level: Level, option: dict[str, Any], value: str) -> None:
    level.values[option["name"]] = value
    if "--output" in option["opts"]:
        walk.output = value


# -- a completion request: the words the shell sends --------------------------------------------------


class CompletionRequest:
    """A Tab press (`_WFCTL_COMPLETE=complete_bash|zsh|fish`): the shell, the complete words before the
    word being typed (a CommandLine), that word, and fish's action."""

    def __init__(self, instruction: str, environ: typing.Mapping[str, str]) -> None:
        action, _, self.shell = instruction.partition("_")
        self.valid = action == "complete" and self.shell in ("bash", "zsh", "fish")
        if self.shell == "bash":
            words = split_line(environ.get("COMP_WORDS", ""))
            cword = int(environ.get("COMP_CWORD", "0"))
            args, self.incomplete = words[1:cword], (words[cword] if cword < len(words) else "")
        else:
            line = environ.get("_TYPER_COMPLETE_ARGS", "")
            args = split_line(line)[1:]
            self.incomplete = ""
            if args and not line.endswith(" "):
                self.incomplete = args.pop()
        if self.incomplete == "=":
            self.incomplete = ""
        elif "=" in self.incomplete and self.incomplete.startswith("-"):  # `--client=c-1`: the option's value
            name, _, self.incomplete = self.incomplete.partition("=")
            args = [*args, name]
        self.line = CommandLine(args, environ)
        self.fish_action = environ.get("_TYPER_COMPLETE_FISH_ACTION", "")


def split_line(line: str) -> list[str]:
    """click's split_arg_string (shlex, posix, whitespace_split), without shlex for a plain line."""
    if not any(ch in line for ch in "\"'\\"):
        plain = line.replace("\t", " ").replace("\r", " ").replace("\n", " ")
        return [word for word in plain.split(" ") if word]
    import shlex

    lexer = shlex.shlex(line, posix=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    out: list[str] = []
    try:
        out.extend(lexer)
    except ValueError:
        out.append(lexer.token)
    return out
