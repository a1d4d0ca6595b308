"""The matches resource: create, join, read, act, log, list."""
