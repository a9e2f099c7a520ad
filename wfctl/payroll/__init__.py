"""The agency's pay calendar, bank holidays and the statutory minimum rates: pure functions and tables.

Nothing here imports the CLI (typer, rich, config, output) or the SDK: `wfctl.commands.calendar` and
`wfctl.commands.rates` read the agency and hand its fields in. `calendar` is the week arithmetic,
`bankholidays` the UK bank holidays (the `holidays` library, imported only when a row needs them),
`statutory` the National Minimum Wage and National Living Wage table (docs/payroll.md).
"""
