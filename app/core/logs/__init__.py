"""Strata's own logging: one set-up for every entry point, a rotating file, secrets masked."""
