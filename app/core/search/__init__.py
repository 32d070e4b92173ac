"""search package."""
