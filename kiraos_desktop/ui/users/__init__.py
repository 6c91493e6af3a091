"""The Users page: the lazy user list, search, and the user detail with its tabs."""
