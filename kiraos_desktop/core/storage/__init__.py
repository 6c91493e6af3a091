"""The storage shapes behind the store: tables, SQL dialect, plugin layouts, database URLs."""
