"""Alembic migrations of the durable schema, run by the stores on first use."""
