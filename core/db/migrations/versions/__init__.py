"""Revision scripts, oldest first."""
