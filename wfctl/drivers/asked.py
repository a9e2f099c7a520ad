"""What a command's option groups asked for, as the values its driver takes: `OutputOptions` (-o, --fields
and the query options) and `DiffAsked` (a `diff`'s). Declared here, below wfctl.commands, so a driver
names them without importing its command; the options themselves are declared in
wfctl.commands.output_options and wfctl.commands.bulkoptions, which make these values.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING

from wfctl.render.shaped import Shape

if TYPE_CHECKING:
    from wfctl.context import AppContext
    from wfctl.render.output import Output
    from wfctl.render.streams import IO

NO_SHAPE = Shape()  # no query option given


@dataclass(frozen=True)
class OutputOptions:
    """What a command's output options asked for."""

    format: str | None = None  # -o after the command; None: the global -o, WFCTL_OUTPUT, the profile, table
    fields: str | None = None  # --fields as given (checked against a kind's fields by `writer`)
    shape: Shape = NO_SHAPE  # --jq, --jq-each, --arg, --argjson, --sort-by, --columns (wfctl.render.shaped)

    def writer(self, app: AppContext, kind: str | None = None, *, io: IO | None = None) -> Output:
        """The command's Output: this -o, else the global one, WFCTL_OUTPUT, the profile's, table; --fields of
        a `kind` record checked (a name it does not have is exit 2). An -o given here becomes the run's, so
        its errors are in the same format. `io`: where it writes, if not the command's stdout (a file)."""
        if not self.shape and io is None:
            return app.output(self.format, self.fields, kind)
        fmt = app.output_format(self.format)
        if not self.shape:
            from wfctl.render.output import Output as Writer

            return Writer(io or app.io, fmt, fields=self.fields, kind=kind)
        from wfctl.render.shaped import ShapedOutput

        return ShapedOutput(io or app.io, fmt, self.shape, fields=self.fields, kind=kind)


#: Nothing asked on the command itself (the default of a command's `output` parameter).
AS_CONFIGURED = OutputOptions()


class DiffAsked(SimpleNamespace):
    """What a `diff`'s options asked for (--from-profile ... --markdown, after the kind's scope options). A
    namespace, not a dataclass: a dataclass is made by compiling its methods, at every start of a command."""

    from_profile: str | None = None
    field_map: list[str] | None = None
    ignore_fields: str | None = None
    ignore_ids: bool = False
    delimiter: str | None = None
    sheet: str | None = None
    ignore_columns: str | None = None
    concurrency: int = 16
    markdown: bool = False


DIFF_ASKED = DiffAsked()
