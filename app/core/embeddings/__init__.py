"""embeddings package."""
