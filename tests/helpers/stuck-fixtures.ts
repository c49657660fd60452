import { createHash } from "node:crypto";
import type pg from "pg";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import type { Role } from "@/lib/identity/roles";
import { DEMO_PASSWORD } from "@/lib/auth/demo-mode";
import { saveUser } from "@/lib/auth/users";
import type { Db } from "@/lib/db/prisma";

/**
 * Stuck claims for the browser tests of the operator's flows, in the served console's database,
 * and the demo processor's answer about each: a claim is "taken" once `charge` made the processor
 * hold a succeeded charge under its key, "not taken" otherwise.
 */

const SETUP: Actor = {
  kind: "system",
  id: "test",
  name: "system:test",
  displayName: "test",
  role: "admin",
  tenants: [],
};

/** A password account limited to `tenants`, so "the next stuck claim" is the test's own. */
export async function addTenantUser(db: Db, email: string, role: Role, tenants: string[]): Promise<void> {
  await saveUser(db, SETUP, { email, role, tenants, password: DEMO_PASSWORD });
}

export async function insertStuckClaim(
  pool: pg.Pool,
  input: { tenant: string; label: string; minutesAgo: number; tool?: string },
): Promise<string> {
  const key = createHash("sha256").update(`stuck-fixture|${input.tenant}|${input.label}`).digest("hex");
  await pool.query(
    `INSERT INTO idempotency (key, tenant, subject, tool, status, created_at)
     VALUES ($1, $2, 'user_1', $3, 'in_progress', now() - make_interval(secs => $4::float8 * 60))`,
    [key, input.tenant, input.tool ?? "charge_card", input.minutesAgo],
  );
  return key;
}

let processorUrl: string | null = null;

/** The demo processor the console asks (its record API names it), found once through a signed-in page. */
export async function findProcessor(page: Page, key: string): Promise<string> {
  if (processorUrl) return processorUrl;
  const detail = (await page.evaluate((k) => fetch(`/api/v1/records/${k}`).then((r) => r.json()), key)) as {
    processor: string | null;
  };
  processorUrl = /^GET (http\S+)\/references\/\{key\}$/.exec(detail.processor ?? "")?.[1] ?? null;
  expect(processorUrl, "the browser project's console is expected to run the demo processor").not.toBeNull();
  return processorUrl as string;
}

/** The processor now holds a succeeded charge under this key: asked, it says "taken". */
export async function charge(page: Page, key: string): Promise<void> {
  const url = await findProcessor(page, key);
  const response = await fetch(`${url}/charges`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ card: "c_4242", amount_cents: 1_500, reference: key }),
  });
  expect(response.status).toBe(200);
}

/** The row as the table holds it now (null: no row, e.g. released). */
export async function rowOf(pool: pg.Pool, key: string) {
  const { rows } = await pool.query<{ status: string; updated_at: Date | null }>(
    `SELECT status, updated_at FROM idempotency WHERE key = $1`,
    [key],
  );
  return rows[0] ?? null;
}

/** Every audit entry about this key, oldest first. */
export async function auditOf(pool: pg.Pool, key: string) {
  const { rows } = await pool.query<{ id: string; action: string; actor: string; reason: string | null }>(
    `SELECT id::text, action, actor, reason FROM audit_log WHERE key = $1 ORDER BY id`,
    [key],
  );
  return rows;
}

/**
 * Is the focused element the result matching `selector`: inside it, or the live region
 * (ActionResult, role=status) that holds it and took focus when it arrived?
 */
export function focusIsOn(page: Page, selector: string): Promise<boolean> {
  return page.evaluate((s) => {
    const active = document.activeElement;
    if (!active || active === document.body) return false;
    if (active.closest(s)) return true;
    return active.getAttribute("role") === "status" && active.querySelector(s) !== null;
  }, selector);
}
