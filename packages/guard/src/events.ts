import type { Queryable } from "./queryable.ts";

/** What writers following the full protocol append beside the table (docs/architecture.md#columns). */
export const EVENT_KINDS = ["replay_served", "in_flight_rejected", "outcome_unknown", "arguments_mismatch"] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export async function appendEvent(
  db: Queryable,
  event: {
    key: string;
    tenant: string;
    tool: string;
    kind: EventKind;
    at: Date;
    detail?: unknown;
    /** The calling host as the MCP initialize handshake named it ("name version"), where known. */
    client?: string | null;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO idempotency_event (key, tenant, tool, kind, at, detail, client)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)`,
    [
      event.key,
      event.tenant,
      event.tool,
      event.kind,
      event.at,
      event.detail === undefined ? null : JSON.stringify(event.detail),
      event.client ?? null,
    ],
  );
}
