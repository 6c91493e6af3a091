"""The SQLite store (ours and the KiraOS plugin's 1.x/2.x database)."""
