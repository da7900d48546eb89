"""Helpers for running pbem against real servers (tests, demos, benchmarks).

Nothing here is imported by the game or the worker themselves.
"""
