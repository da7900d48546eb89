"""Harnesses for running pbem against real servers, for the tests and the benchmarks only.

This folder sits beside ``pbem/`` and is not part of the installed package (pyproject.toml does not list it):
the tests find it through pytest's ``pythonpath``, the bench scripts through bench/checkout.py. Nothing in
``pbem`` imports it.
"""
