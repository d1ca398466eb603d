"""Benchmarks: run as modules (``python -m bench.<name>``), never as tests."""
