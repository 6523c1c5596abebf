"""Tidy pandas tables and matplotlib plots built from the engines."""
