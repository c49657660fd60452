"""Claiming a key before the side effect, and storing the outcome after it: the TypeScript
package's claim.ts statements, run through asyncpg."""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Awaitable, Callable, Protocol


class Database(Protocol):
    """An asyncpg Pool or Connection, or anything with their ``fetchrow`` and ``execute``."""

    async def fetchrow(self, query: str, *args: Any) -> Any: ...

    async def execute(self, query: str, *args: Any) -> str: ...


# Claims the key, or reads the row that holds it, in one round trip. The look-up in the same
# statement uses the statement's snapshot, so a row whose writer committed while our INSERT
# waited on it is invisible there: then, and only then, a second SELECT reads it. A prior row
# comes with its ``arguments_sha256``, so the guard can tell a repeat from another operation that
# reuses the key without another round trip. JSON crosses as text (``::text``), so a jsonb codec
# the pool may have registered changes nothing.
CLAIM_OR_READ = """
WITH claim AS (
  INSERT INTO idempotency (key, tenant, subject, tool, arguments_sha256, status, created_at)
  VALUES ($1, $2, $3, $4, $5, 'in_progress', $6)
  ON CONFLICT (key) DO NOTHING
  RETURNING key
)
SELECT true AS claimed, NULL::text AS status, NULL::text AS response, NULL::text AS arguments_sha256 FROM claim
UNION ALL
SELECT false, i.status, i.response::text, i.arguments_sha256 FROM idempotency i
WHERE i.key = $1 AND NOT EXISTS (SELECT 1 FROM claim)"""

READ = "SELECT status, response::text AS response, arguments_sha256 FROM idempotency WHERE key = $1"

COMPLETE = """UPDATE idempotency SET status = 'completed', response = $2::text::jsonb, updated_at = $3
     WHERE key = $1 AND status = 'in_progress'"""


@dataclass(frozen=True)
class ClaimResult:
    claimed: bool
    status: str | None = None
    """The prior row's status, when not claimed."""
    response: Any = None
    """The prior row's response, parsed, when not claimed."""
    arguments_sha256: str | None = None
    """The prior row's hash of its canonical arguments, when not claimed; None where its writer
    records none."""


async def claim_or_read(
    db: Database,
    *,
    key: str,
    tenant: str,
    subject: str | None,
    tool: str,
    arguments_sha256: str,
    at: datetime,
    on_race: Callable[[], Awaitable[None] | None] | None = None,
) -> ClaimResult:
    while True:
        row = await db.fetchrow(CLAIM_OR_READ, key, tenant, subject, tool, arguments_sha256, at)
        if row is not None and row["claimed"]:
            return ClaimResult(claimed=True)
        if row is not None:
            return ClaimResult(
                claimed=False,
                status=row["status"] or "",
                response=_parse(row["response"]),
                arguments_sha256=row["arguments_sha256"],
            )
        if on_race is not None:
            maybe = on_race()
            if inspect.isawaitable(maybe):
                await maybe
        prior = await db.fetchrow(READ, key)
        if prior is not None:
            return ClaimResult(
                claimed=False,
                status=prior["status"],
                response=_parse(prior["response"]),
                arguments_sha256=prior["arguments_sha256"],
            )
        # Deleted between the two statements (an operator released it): try again.


async def complete(db: Database, key: str, response: Any, at: datetime) -> bool:
    """Stores the outcome; only a claim still in flight is completed (an operator may have acted)."""
    status = await db.execute(COMPLETE, key, json.dumps(response), at)
    return status == "UPDATE 1"


def _parse(text: str | None) -> Any:
    return None if text is None else json.loads(text)
