"""REST routers: one module per feature area, each exporting `router` (listed in app/api/app.py)."""
