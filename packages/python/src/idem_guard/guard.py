"""The guard: the reference writer's handler as a decorator for an async tool handler.

The key is claimed before the side effect, a completed row's response is replayed, a claim still
in flight is reported with its ref, and a timeout (``OutcomeUnknownError``) leaves the claim in
flight and says the outcome is unknown. A handler that raises anything else leaves the claim in
flight too (it may have acted): that is the stuck row the console's operators and reconciler
resolve. A row whose recorded ``arguments_sha256`` differs from the call's is another operation
under the same key (a business key reused with other arguments): the call is refused, as a payment
API refuses a reused Idempotency-Key, never answered with that operation's response. A row that
records no hash (NULL: a writer that fills no optional column) is replayed or reported in flight as
before. With ``arguments_in_key=False`` the business key alone names the operation, so that refusal
is what a second call under one order id with other arguments gets. Behaves as the TypeScript
package's ``withIdempotency``.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Awaitable, Callable, Literal, TypeVar

from .claim import Database, claim_or_read, complete
from .errors import KeyInputError, OutcomeUnknownError
from .events import EventKind, append_event
from .keys import DEFAULT_WINDOW_SECONDS, check_arguments_in_key, check_scheme, check_window, derive_key
from .messages import arguments_mismatch_message, in_flight_message, outcome_unknown_message

Outcome = Literal["executed", "replayed", "in_flight", "outcome_unknown", "arguments_mismatch"]
Caller = TypeVar("Caller")


@dataclass(frozen=True)
class GuardResult:
    outcome: Outcome
    key: str
    ref: str
    response: Any = None
    """What the handler returned (executed) or the stored response (replayed)."""
    message: str | None = None
    """For in_flight, outcome_unknown and arguments_mismatch: what the caller should read, ref and next
    step included."""
    status: str | None = None
    """For in_flight: the status of the row that holds the key."""

    @property
    def is_error(self) -> bool:
        """True for in_flight, outcome_unknown and arguments_mismatch: the MCP result's ``isError``."""
        return self.outcome in ("in_flight", "outcome_unknown", "arguments_mismatch")

    @property
    def text(self) -> str:
        """What an MCP tool result's text content should carry: the response as JSON, or the message."""
        return self.message if self.message is not None else json.dumps(self.response)


def idempotent(
    *,
    tool: str,
    status_tool: str,
    pool: Database,
    tenant: Callable[[Caller], str],
    subject: Callable[[Caller], str | None] | None = None,
    noun: str = "An operation",
    upstream: str = "processor",
    business_key: Callable[[Any], str | None] | None = None,
    arguments_in_key: bool = True,
    window_seconds: int = DEFAULT_WINDOW_SECONDS,
    scheme: str = "python-json",
    client: Callable[[Caller], str | None] | None = None,
    clock: Callable[[], datetime] | None = None,
    record_events: bool = True,
    on_race: Callable[[], Awaitable[None] | None] | None = None,
) -> Callable[[Callable[..., Awaitable[Any]]], Callable[[Caller, Any], Awaitable[GuardResult]]]:
    """Wraps ``async def handler(arguments, *, key, ref)`` into ``async def call(caller, arguments)
    -> GuardResult``. ``tenant``, ``subject`` and ``client`` read the caller (the verified token,
    the MCP session), never the arguments; ``business_key`` reads the arguments. ``clock`` returns
    an aware datetime (default: now, UTC). ``on_race`` is called (and awaited, if it returns an
    awaitable) when the claim lost a race and needed its second look-up.

    ``arguments_in_key`` (default ``True``): the key covers the canonical arguments too, so the same
    business key with other arguments is another operation and runs. ``False``: the business key
    alone names the operation (as a payment API's Idempotency-Key does): a second call under it
    with other arguments is refused with ``arguments_mismatch`` (nothing run, nothing replayed),
    one with the same arguments is replayed. It needs ``business_key`` (refused here otherwise),
    and a call whose ``business_key`` returns ``None`` raises ``KeyInputError``."""
    check_window(window_seconds)
    check_scheme(scheme)
    check_arguments_in_key(arguments_in_key, business_key is not None)
    now = clock if clock is not None else lambda: datetime.now(timezone.utc)

    def decorate(handler: Callable[..., Awaitable[Any]]) -> Callable[[Caller, Any], Awaitable[GuardResult]]:
        @functools.wraps(handler)
        async def call(caller: Caller, arguments: Any) -> GuardResult:
            at = now()
            if not isinstance(at, datetime):
                raise KeyInputError(f"clock: expected a datetime (got {at!r})")
            caller_tenant = tenant(caller)
            caller_subject = subject(caller) if subject is not None else None
            caller_client = client(caller) if client is not None else None
            derived = derive_key(
                caller_tenant,
                caller_subject,
                tool,
                arguments,
                at=at,
                window_seconds=window_seconds,
                scheme=scheme,
                business_key=business_key(arguments) if business_key is not None else None,
                arguments_in_key=arguments_in_key,
            )
            key, ref = derived.key, derived.ref

            async def event(kind: EventKind, detail: Any = None) -> None:
                if record_events:
                    await append_event(
                        pool,
                        key=key,
                        tenant=caller_tenant,
                        tool=tool,
                        kind=kind,
                        at=now(),
                        detail=detail,
                        client=caller_client,
                    )

            claim = await claim_or_read(
                pool,
                key=key,
                tenant=caller_tenant,
                subject=caller_subject,
                tool=tool,
                arguments_sha256=derived.arguments_sha256,
                at=at,
                on_race=on_race,
            )
            if not claim.claimed:
                stored = claim.arguments_sha256
                if stored is not None and stored != derived.arguments_sha256:
                    await event("arguments_mismatch", {"stored": stored, "call": derived.arguments_sha256})
                    return GuardResult(
                        outcome="arguments_mismatch",
                        key=key,
                        ref=ref,
                        message=arguments_mismatch_message(noun, ref, status_tool),
                    )
                if claim.status == "completed":
                    await event("replay_served")
                    return GuardResult(outcome="replayed", key=key, ref=ref, response=claim.response)
                await event("in_flight_rejected", {"status": claim.status})
                return GuardResult(
                    outcome="in_flight",
                    key=key,
                    ref=ref,
                    status=claim.status,
                    message=in_flight_message(noun, ref, status_tool),
                )

            try:
                response = await handler(arguments, key=key, ref=ref)
            except OutcomeUnknownError as error:
                await event("outcome_unknown", {"reason": str(error)})
                return GuardResult(
                    outcome="outcome_unknown",
                    key=key,
                    ref=ref,
                    message=outcome_unknown_message(upstream, noun, ref, status_tool, error.waited_ms),
                )
            await complete(pool, key, response, now())
            return GuardResult(outcome="executed", key=key, ref=ref, response=response)

        return call

    return decorate
