"""The indexed corpus: one component keeps each kind's SQLite rows, FTS5 entries and vectors in step."""
