"""The loopback HTTP API for bot hosts (DESIGN §6): Starlette app, security layer and uvicorn server."""
