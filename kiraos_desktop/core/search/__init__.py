"""The user list's search in ids, keys, values and events, and its index."""
