"""One parser per format: bytes in, a ParsedDocument of located sections out."""
