"""Renderings of game positions for people: plain text for email."""

from .text import render_board

__all__ = ["render_board"]
