"""The package's exceptions: bad key input, arguments a canonical form refuses, and the one a
handler raises when its upstream may or may not have acted."""

from __future__ import annotations


class KeyInputError(ValueError):
    """Bad key input; the message starts with the field it is about ("window: ...")."""


class CanonicalJsonError(KeyInputError):
    """Arguments a canonical form cannot write (for JCS: NaN, a lone surrogate, an int beyond a
    double). The message ends with where, as a path from the arguments' root: ``at $["amount"]``."""


class OutcomeUnknownError(Exception):
    """Raised by a handler when the side effect may or may not have happened (a processor
    timeout): the guard leaves the claim ``in_progress`` and tells the caller so, instead of
    guessing. ``waited_ms``, when given, is how long the upstream was waited for; the caller's
    message then says "within 30 s" instead of "in time"."""

    def __init__(self, message: str, waited_ms: float | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.waited_ms = waited_ms

    def __str__(self) -> str:
        return self.message
