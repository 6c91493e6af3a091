"""Memory records, the three memory tools, the audit log and reverting it."""
