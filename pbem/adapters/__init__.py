"""Adapters: the edges where pbem talks to mail servers."""
