"""Importers for chat exports the user already has (Slack, Telegram, Discord, WhatsApp, e-mail)."""
