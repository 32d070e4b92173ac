"""Memory files: a folder of markdown the user and their agents read, edit and search (no I/O here)."""
