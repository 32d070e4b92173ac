"""Memory files use cases: generate readable markdown pages from the archive, and read, write, search them."""
