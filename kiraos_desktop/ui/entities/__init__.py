"""The window's view of a KiraOS plugin 3.x memory tree: its entities, their profiles and memories, read only."""
