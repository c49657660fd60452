import { createHash } from "node:crypto";
import { expect } from "vitest";
import type { Db } from "@/lib/db/prisma";

/**
 * A charge_card claim stuck in_progress for an hour whose charge the demo processor at
 * `processorUrl` holds: asked, it says "taken", so completing it succeeds. Its key is the
 * sha256 of `label`.
 */
export async function insertTakenClaim(
  db: Db,
  processorUrl: string,
  input: { tenant: string; label: string; amountCents: number },
): Promise<string> {
  const key = createHash("sha256").update(input.label).digest("hex");
  await db.$executeRaw`INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES (${key}, ${input.tenant}, 'charge_card', 'in_progress', now() - interval '1 hour')`;
  const charged = await fetch(`${processorUrl}/charges`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ card: "c_4242", amount_cents: input.amountCents, reference: key }),
  });
  expect(charged.status).toBe(200);
  return key;
}
