"""Executing compiled programs; the only package that imports cupy (lazily)."""
