"""The reference writer's key, reproduced exactly:

    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"))
    bucket = int(time.time()) // window_s
    material = f"{caller.tenant}|{caller.subject}|{tool}|{canonical}|{bucket}"
    key = hashlib.sha256(material.encode()).hexdigest()

with the same options as the TypeScript package's ``deriveKey``: a window other than 900 s, the
RFC 8785 (JCS) canonical form instead of Python's, a business key instead of the time bucket
(``tenant|subject|tool|canonical|business_key``), and ``arguments_in_key=False``, where the business
key alone names the operation as a payment API's Idempotency-Key does
(``tenant|subject|tool|business_key``, no arguments): a second call under it with other arguments
derives the same key, and the guard refuses it (``arguments_mismatch``) instead of running it.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Final, Literal

from .canonical_jcs import canonical_jcs
from .errors import KeyInputError

KeyScheme = Literal["python-json", "jcs"]
KEY_SCHEMES: Final[tuple[str, ...]] = ("python-json", "jcs")
DEFAULT_WINDOW_SECONDS: Final = 900
_MAX_SAFE_INTEGER: Final = 2**53 - 1
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dataclass(frozen=True)
class DerivedKey:
    key: str
    """sha256 hex of ``material`` as UTF-8."""
    ref: str
    """The first 12 hex digits: the short reference support staff see in messages."""
    canonical: str
    material: str
    """``tenant|subject|tool|canonical|bucket``; with ``arguments_in_key=False``
    ``tenant|subject|tool|business_key``."""
    bucket: str
    """The time bucket (``"1969296"``), or the business key when one was given."""
    scheme: str
    arguments_sha256: str
    """sha256 hex of ``canonical`` alone: with tenant, subject and tool it names the operation across buckets."""


def derive_key(
    tenant: str,
    subject: str | None,
    tool: str,
    arguments: Any,
    at: datetime | float | None = None,
    window_seconds: int = DEFAULT_WINDOW_SECONDS,
    scheme: str = "python-json",
    business_key: str | None = None,
    arguments_in_key: bool = True,
) -> DerivedKey:
    """The key of one call. ``arguments`` is the parsed JSON value (what ``json.loads`` returns);
    ``at`` is when the call happened, an aware datetime or Unix seconds (default ``time.time()``).
    ``arguments_in_key=False`` (it needs a ``business_key``) leaves the arguments out of the key:
    the business key alone names the operation, and ``arguments_sha256`` tells its calls apart."""
    check_window(window_seconds)
    check_scheme(scheme)
    seconds = _whole_seconds(time.time() if at is None else at)
    if business_key is not None and not isinstance(business_key, str):
        raise KeyInputError(f"business_key: expected a string (got {business_key!r})")
    if business_key == "":
        raise KeyInputError("business_key: must not be empty (omit it to use the time bucket)")
    check_arguments_in_key(arguments_in_key, business_key is not None)
    for field, text in (("tenant", tenant), ("subject", subject), ("tool", tool), ("business_key", business_key)):
        if text is None and field in ("subject", "business_key"):
            continue
        if not isinstance(text, str):
            raise KeyInputError(f"{field}: expected a string (got {text!r})")
        # str.encode() refuses a surrogate; in a Python str every surrogate is a lone one.
        if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
            raise KeyInputError(f"{field}: contains a lone surrogate, which is not encodable as UTF-8")

    canonical = canonical_jcs(arguments) if scheme == "jcs" else canonical_python_json(arguments)
    bucket = business_key if business_key is not None else str(seconds // window_seconds)
    # f"{None}" is "None": a writer without a subject hashes that word.
    if arguments_in_key:
        material = f"{tenant}|{subject}|{tool}|{canonical}|{bucket}"
    else:
        material = f"{tenant}|{subject}|{tool}|{bucket}"
    key = hashlib.sha256(material.encode("utf-8")).hexdigest()
    arguments_sha256 = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    return DerivedKey(
        key=key,
        ref=ref_of(key),
        canonical=canonical,
        material=material,
        bucket=bucket,
        scheme=scheme,
        arguments_sha256=arguments_sha256,
    )


def canonical_python_json(arguments: Any) -> str:
    """The reference writer's canonical form: ``json.dumps(arguments, sort_keys=True, separators=(",", ":"))``."""
    try:
        return json.dumps(arguments, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError) as error:
        raise KeyInputError(f"arguments: not representable as JSON ({error})") from error


def ref_of(key: str) -> str:
    """The short reference support staff see in error messages ("ref 3f9a1c2b7d4e")."""
    return key[:12]


def check_window(window_seconds: Any) -> None:
    # A float window would change the key: int // 900.0 is written "1969296.0".
    if (
        isinstance(window_seconds, bool)
        or not isinstance(window_seconds, int)
        or not 0 < window_seconds <= _MAX_SAFE_INTEGER
    ):
        raise KeyInputError(f"window: expected a positive whole number of seconds (got {window_seconds!r})")


def check_arguments_in_key(arguments_in_key: Any, has_business_key: bool) -> None:
    """``arguments_in_key=False`` needs a business key: without the arguments and without one,
    every call of the tool in a time bucket would share one key. ``has_business_key`` is whether
    the call (or, for the decorator, the tool) has one."""
    if not isinstance(arguments_in_key, bool):
        raise KeyInputError(f"arguments_in_key: expected True or False (got {arguments_in_key!r})")
    if not arguments_in_key and not has_business_key:
        raise KeyInputError(
            "arguments_in_key: False needs a business_key (without arguments or a business key,"
            " every call of the tool in a time bucket would share one key)"
        )


def check_scheme(scheme: Any) -> None:
    if scheme not in KEY_SCHEMES:
        shown = json.dumps(scheme) if isinstance(scheme, str) else repr(scheme)
        raise KeyInputError(f"scheme: expected python-json or jcs (got {shown})")


def _whole_seconds(at: Any) -> int:
    """``int(seconds)``: truncated toward zero, as ``int(time.time())`` is; that matters before 1970."""
    if isinstance(at, datetime):
        if at.tzinfo is None or at.utcoffset() is None:
            raise KeyInputError("at: expected a timezone-aware datetime (a naive one has no fixed instant)")
        delta = at - _EPOCH
        micros = (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds
        return micros // 1_000_000 if micros >= 0 else -(-micros // 1_000_000)
    if isinstance(at, bool) or not isinstance(at, (int, float)):
        raise KeyInputError(f"at: expected a datetime or Unix seconds (got {at!r})")
    if isinstance(at, float) and not math.isfinite(at):
        raise KeyInputError("at: not a valid date")
    return int(at)
