"""Scenario tests drive whole flows through the real platform clients on loopback.

Having this conftest here puts ``tests/scenarios`` on the import path, so scenario
tests share the local fakes in ``fakes/``.
"""
