"""Tests of the terminal console."""
