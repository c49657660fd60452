"""The two tables the guard writes, for a database without Idem Console (whose migrations create
the same columns). Safe to run again: every statement is ``IF NOT EXISTS``."""

from __future__ import annotations

from typing import Final

SCHEMA_SQL: Final = """\
CREATE TABLE IF NOT EXISTS idempotency (
    key              text COLLATE "C" PRIMARY KEY,
    tenant           text NOT NULL,
    subject          text,
    tool             text,
    status           text NOT NULL,
    response         jsonb,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz,
    arguments_sha256 text
);
CREATE TABLE IF NOT EXISTS idempotency_event (
    id     bigserial PRIMARY KEY,
    key    text COLLATE "C" NOT NULL,
    tenant text NOT NULL,
    tool   text,
    kind   text NOT NULL
           CHECK (kind IN ('replay_served', 'in_flight_rejected', 'outcome_unknown', 'arguments_mismatch')),
    at     timestamptz NOT NULL DEFAULT now(),
    detail jsonb,
    client text
);
"""
