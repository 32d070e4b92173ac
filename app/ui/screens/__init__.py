"""One module per screen of the main window."""
