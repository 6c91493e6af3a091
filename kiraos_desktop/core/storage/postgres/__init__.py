"""The PostgreSQL store (a shared server database)."""
