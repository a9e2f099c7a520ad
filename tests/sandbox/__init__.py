"""API-level tests of the sandbox, over a real socket."""
