"""RFC 8785 JSON Canonicalization Scheme, for writers that are not Python, byte for byte what the
TypeScript package's ``canonicalJcs`` writes for the same JSON.

Object keys are sorted by UTF-16 code units, numbers are IEEE 754 doubles written the way
ECMAScript's ``Number.prototype.toString`` writes them, and strings carry only the escapes JSON
requires (non-ASCII stays as is; the key hashes it as UTF-8).

JCS input must be I-JSON (RFC 7493), so this refuses what the RFC says to refuse rather than
guessing: NaN and the infinities, ints beyond a double's range, lone surrogates. Ints are
converted to the nearest double, as the RFC specifies: ``2**53 + 1`` is written
``9007199254740992``.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

from .errors import CanonicalJsonError

# Deeper than this is refused, as the TypeScript parser refuses it (and a cycle ends here too).
MAX_DEPTH = 512

_ESCAPES = {
    0x22: '\\"',
    0x5C: "\\\\",
    0x08: "\\b",
    0x0C: "\\f",
    0x0A: "\\n",
    0x0D: "\\r",
    0x09: "\\t",
}


def canonical_jcs(value: Any) -> str:
    """The JCS text of a parsed JSON value (what ``json.loads`` returns)."""
    out: list[str] = []
    # Iterative, so MAX_DEPTH levels never meet Python's recursion limit: a str on the stack is
    # text to write, a tuple is (value, path, depth) still to serialise.
    stack: list[str | tuple[Any, str, int]] = [(value, "$", 0)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        current, path, depth = item
        if isinstance(current, (list, tuple, dict)):
            if depth >= MAX_DEPTH:
                raise CanonicalJsonError(f"Nesting deeper than {MAX_DEPTH} levels at {path}")
            if isinstance(current, dict):
                members = _sorted_members(current, path)
                out.append("{")
                stack.append("}")
                for i in reversed(range(len(members))):
                    key, member = members[i]
                    member_path = _member_path(path, key)
                    stack.append((member, member_path, depth + 1))
                    stack.append(f"{',' if i else ''}{_string(key, member_path)}:")
            else:
                out.append("[")
                stack.append("]")
                for i in reversed(range(len(current))):
                    stack.append((current[i], f"{path}[{i}]", depth + 1))
                    if i:
                        stack.append(",")
            continue
        out.append(_scalar(current, path))
    return "".join(out)


def ecmascript_number(x: float) -> str:
    """ECMAScript's Number::toString(x) for a finite double: the shortest digits that round-trip
    (the digits Python's repr picks too), positional for decimal exponents -7 < e < 21,
    otherwise ``1e+21`` / ``1.5e-7``. -0 is written ``0``."""
    if not math.isfinite(x):
        raise ValueError(f"not a finite number: {x!r}")
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    _, digit_tuple, exponent = Decimal(repr(abs(x))).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    k = len(digits)
    n = k + int(exponent)  # the value is 0.digits × 10^n
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = f"{digits[:n]}.{digits[n:]}"
    elif -6 < n <= 0:
        text = f"0.{'0' * -n}{digits}"
    else:
        mantissa = digits if k == 1 else f"{digits[0]}.{digits[1:]}"
        text = f"{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"
    return sign + text


def _scalar(value: Any, path: str) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return _string(value, path)
    if isinstance(value, int):
        try:
            x = float(value)
        except OverflowError:
            raise CanonicalJsonError(
                f"Integer of {value.bit_length()} bits is out of range for JCS (an IEEE 754 double) at {path}"
            ) from None
        return ecmascript_number(x)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CanonicalJsonError(f"Number {value!r} is out of range for JCS (an IEEE 754 double) at {path}")
        return ecmascript_number(value)
    raise CanonicalJsonError(f"Value of type {type(value).__name__} is not representable as JSON at {path}")


def _sorted_members(value: dict[Any, Any], path: str) -> list[tuple[str, Any]]:
    for key in value:
        if not isinstance(key, str):
            raise CanonicalJsonError(f"Object key {key!r} is not a string (JSON object keys are strings) at {path}")
        _check_surrogates(key, _member_path(path, key))
    # Big-endian UTF-16 bytes compare as the code-unit sequences RFC 8785 sorts by.
    return sorted(value.items(), key=lambda member: member[0].encode("utf-16-be"))


def _member_path(path: str, key: str) -> str:
    return f"{path}[{json.dumps(key)}]"


def _check_surrogates(text: str, path: str) -> None:
    # A Python str holds code points: any surrogate in it is lone (a pair would be one code point).
    if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        raise CanonicalJsonError(f"String with a lone surrogate (JCS input must be I-JSON) at {path}")


def _string(text: str, path: str) -> str:
    _check_surrogates(text, path)
    out = ['"']
    for c in text:
        code = ord(c)
        escape = _ESCAPES.get(code)
        if escape is not None:
            out.append(escape)
        elif code < 0x20:
            out.append(f"\\u{code:04x}")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)
