"""The fast paths: the hot requests (context, memory_update, MCP tool calls) answered below the router,
with the same replies as the routes (the parity tests check it)."""
