"""The caller-facing sentences, always in three parts: the ref, what not to do, what to call.
Byte for byte the TypeScript package's (messages.ts), seconds formatting included."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

from .canonical_jcs import ecmascript_number


def in_flight_message(noun: str, ref: str, status_tool: str) -> str:
    return (
        f"{noun} with these exact details is already in progress (ref {ref}). "
        f"Do not submit it again; call {status_tool} with this ref."
    )


def arguments_mismatch_message(noun: str, ref: str, status_tool: str) -> str:
    """The key names an operation already submitted with other arguments (a business key reused
    for a different call): refused, never answered with the first call's response."""
    return (
        f"{noun} with this business key was already submitted with other arguments (ref {ref}); "
        "this call was refused and not performed. Do not repeat it with the same business key; "
        "use a new one (such as a new order id) for a different operation, "
        f"or call {status_tool} with this ref to see the first."
    )


def outcome_unknown_message(
    upstream: str, noun: str, ref: str, status_tool: str, waited_ms: float | None = None
) -> str:
    waited = "in time" if waited_ms is None else f"within {format_seconds(waited_ms)} s"
    return (
        f"The {upstream} did not answer {waited}. {noun} may or may not have been taken; ref {ref} is recorded. "
        f"Call {status_tool} with this ref before doing anything else. Do not retry this call."
    )


def format_seconds(ms: float) -> str:
    """``ms < 10_000 ? (ms / 1000).toFixed(1) : String(Math.round(ms / 1000))``, as ECMAScript
    rounds: toFixed takes ties away from zero on the double's exact value (Python's ``:.1f`` would
    take them to even: 250 ms is "0.3" here, as in Node), Math.round takes them up."""
    x = float(ms) / 1000
    if math.isnan(x):
        return "NaN"
    if x < 10:
        if abs(x) >= 1e21:  # toFixed writes these as String(x) does ("-1e+21", "-Infinity")
            return "-Infinity" if math.isinf(x) else f"-{ecmascript_number(-x)}"
        if x == 0:
            return "0.0"  # toFixed writes -0 without its sign
        return str(Decimal(x).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
    if math.isinf(x):
        return "Infinity"
    return ecmascript_number(float(Decimal(x).to_integral_value(rounding=ROUND_HALF_UP)))
