"""Tests of the storage backends and admin operations."""
