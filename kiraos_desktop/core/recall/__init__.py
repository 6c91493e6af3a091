"""Relevance recall: which of a user's events a message is about (text, index, window, ranking)."""
