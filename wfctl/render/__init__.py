"""Every way a record leaves the program: the formats and their writers (`output`), tables, the IO
streams, the query options (`shaped`, `sortcolumns`, jq), YAML and the progress line of a run."""
