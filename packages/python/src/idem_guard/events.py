"""What writers following the full protocol append beside the table: one row in
``idempotency_event`` per replay served, in-flight rejection, unknown outcome and arguments
mismatch (a business key reused with other arguments, refused)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, Final, Literal

from .claim import Database

EventKind = Literal["replay_served", "in_flight_rejected", "outcome_unknown", "arguments_mismatch"]
EVENT_KINDS: Final = ("replay_served", "in_flight_rejected", "outcome_unknown", "arguments_mismatch")

_INSERT = """INSERT INTO idempotency_event (key, tenant, tool, kind, at, detail, client)
     VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $7)"""


async def append_event(
    db: Database,
    *,
    key: str,
    tenant: str,
    tool: str,
    kind: EventKind,
    at: datetime,
    detail: Any = None,
    client: str | None = None,
) -> None:
    """``client`` is the calling host as the MCP initialize handshake named it ("name version")."""
    await db.execute(
        _INSERT, key, tenant, tool, kind, at, None if detail is None else json.dumps(detail), client
    )
