"""Connectors: live platform sync and chat-export importers that yield RawMessage values."""
