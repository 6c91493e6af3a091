"""Moving memory out and in: export, import, backup, migrate to PostgreSQL, info."""
