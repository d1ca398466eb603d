"""Tests of the chat layer."""
