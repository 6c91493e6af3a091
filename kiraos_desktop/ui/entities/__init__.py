"""The window on a KiraOS plugin 3.x memory tree: its entities, their profiles and memories, read and edited."""
