"""Persistence: the tables, the database connection and the unit of work."""
