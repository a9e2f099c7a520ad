"""The SDK's records: one definition of each resource, write models and the rules of a write, pages,
references by name, creates and updates, the three-way merge and the write observer."""
