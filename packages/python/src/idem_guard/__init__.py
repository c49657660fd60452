"""idem-guard: the idempotency-key protocol for side-effecting tool handlers, in Python.

Derive a key on the server, claim it before the side effect, replay a stored response, report a
claim in flight with its ref, leave an unknown outcome claimed for reconciliation, and refuse a
business key reused with other arguments. Keys,
canonical forms, SQL and caller-facing messages are the TypeScript package's (``idem-guard`` on
npm), byte for byte.
"""

from .canonical_jcs import MAX_DEPTH, canonical_jcs, ecmascript_number
from .claim import ClaimResult, Database, claim_or_read, complete
from .errors import CanonicalJsonError, KeyInputError, OutcomeUnknownError
from .events import EVENT_KINDS, EventKind, append_event
from .guard import GuardResult, Outcome, idempotent
from .keys import (
    DEFAULT_WINDOW_SECONDS,
    KEY_SCHEMES,
    DerivedKey,
    KeyScheme,
    canonical_python_json,
    derive_key,
    ref_of,
)
from .messages import arguments_mismatch_message, in_flight_message, outcome_unknown_message
from .schema import SCHEMA_SQL

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_WINDOW_SECONDS",
    "EVENT_KINDS",
    "KEY_SCHEMES",
    "MAX_DEPTH",
    "SCHEMA_SQL",
    "CanonicalJsonError",
    "ClaimResult",
    "Database",
    "DerivedKey",
    "EventKind",
    "GuardResult",
    "KeyInputError",
    "KeyScheme",
    "Outcome",
    "OutcomeUnknownError",
    "__version__",
    "append_event",
    "arguments_mismatch_message",
    "canonical_jcs",
    "canonical_python_json",
    "claim_or_read",
    "complete",
    "derive_key",
    "ecmascript_number",
    "idempotent",
    "in_flight_message",
    "outcome_unknown_message",
    "ref_of",
]
