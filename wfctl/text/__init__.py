"""Text for a person, below the bulk runs and rendering alike: text from the service or a file made safe
to show (`safetext`), a record's changes said (`changes`)."""
