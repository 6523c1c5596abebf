"""The one exception type users see; its message names what is wrong and where."""

__all__ = ["InputError"]


class InputError(ValueError):
    """Bad input from a user: a parameter, a variant, a file. The message is the whole story."""
