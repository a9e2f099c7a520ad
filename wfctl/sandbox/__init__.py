"""The sandbox: a local reference implementation of the Workforce Agency Management Service.

FastAPI + SQLite, implementing `openapi.json` (the project's copy of the contract) and every gap
decision G1-G21 of the contract exactly. It shares the contract with the CLI side of wfctl, not code:
nothing here imports from `wfctl.api`, `wfctl.commands` or the CLI.

    from wfctl.sandbox.app import create_app      # the ASGI app
    from wfctl.sandbox.server import serve        # run it under uvicorn
"""
