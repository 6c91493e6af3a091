"""The memory block a bot receives: entries, format, budget and the recall step."""
