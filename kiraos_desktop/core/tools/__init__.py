"""The memory tools a bot host calls (memory_query, memory_update, memory_clear): on a database
(memory_tools.py) and on a KiraOS 3.x tree (tree_tools.py). They sit above context, recall and
storage, and nothing below imports them."""
