"""Files in and out: the CSV format of a cell, CSV and workbook reading and writing, what a spreadsheet
does to a file, the spool of checked rows, and `errors.BulkError` (a file's or a run's problem)."""
