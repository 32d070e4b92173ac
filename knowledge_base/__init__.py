"""Knowledge base: document parsing, chunking and retrieval."""
