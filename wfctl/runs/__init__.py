"""The run session: the one executor (`engine`), a run's record, journal and lock, an import's and an
export's run, the runs of a profile and undo."""
