"""The command line: the entry (`main`), the root Typer app (`app`), the one parse of the words (`argv`),
and the fast paths that answer --help, --version and a Tab press without building the app."""
