"""MCP (Model Context Protocol): the server of the memory tools and skills, over HTTP (/mcp) and stdio."""
