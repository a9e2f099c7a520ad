"""Typer commands: thin (parse, call, render). Command modules import only typer and wfctl's light
modules at the top; httpx, rich, pydantic and keyring are imported inside the function that needs them."""
