import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { deriveKey } from "idem-guard";
import { callAs } from "../access/call-as";
import { signInOverHttp } from "../access/http-session";

// The pages of the running console, for acme-support@demo.test (a viewer limited to tenant acme)
// beside an admin who sees every tenant: the admin's page shows tenant B's record (so the check
// can fail), acme-support's never does — no row, no link, no figure, and a 404 for its page.
const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const B = `pages-b-${run}`;
const AT = new Date("2026-06-01T12:00:00Z");
const ARGS = '{"amount_cents":990}';
const keyOf = (tenant: string, args: string) =>
  deriveKey({ tenant, subject: "user_1", tool: "charge_card", argumentsJson: args, at: AT }).key;
const stuckB = keyOf(B, ARGS);
const acmeKey = keyOf("acme", `{"run":"${run}"}`);

describe("tenant scoping on the pages: acme-support never meets another tenant's record", () => {
  const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 1 });
  let acme: string;
  let admin: string;

  beforeAll(async () => {
    await pool.query(
      `INSERT INTO idempotency (key, tenant, subject, tool, status, created_at) VALUES
         ($1, $2, 'user_1', 'charge_card', 'in_progress', now() - interval '1 hour'),
         ($3, 'acme', 'user_1', 'charge_card', 'completed', now())`,
      [stuckB, B, acmeKey],
    );
    await pool.query(
      `INSERT INTO audit_log (actor, actor_role, action, key, tenant, reason) VALUES ('system:pages-test', 'admin', 'record.complete', $1, $2, 'tenant scoping fixture')`,
      [stuckB, B],
    );
    [acme, admin] = (
      await Promise.all([signInOverHttp(baseUrl, "acme-support@demo.test"), signInOverHttp(baseUrl, "admin@demo.test")])
    ).map((s) => s.cookie) as [string, string];
  });
  afterAll(() => pool.end());

  const page = (cookie: string, path: string) => callAs(baseUrl, { cookie }, { method: "GET", path });

  it("record page: B's record is a 404 like a record that does not exist; acme's own opens", async () => {
    expect((await page(admin, `/records/${stuckB}`)).status).toBe(200);
    const theirs = await page(acme, `/records/${stuckB}`);
    expect(theirs.status).toBe(404);
    expect(theirs.text).toContain("Nothing here");
    expect(theirs.text.includes(B), "the 404 names tenant B").toBe(false);
    expect((await page(acme, `/records/${acmeKey}`)).status).toBe(200);
  });

  it("records, stuck claims, audit log and key explainer: tenant B's record is shown to the admin, never to acme-support", async () => {
    const explain = `/keys?tenant=${B}&subject=user_1&tool=charge_card&args=${encodeURIComponent(ARGS)}&at=${AT.toISOString()}`;
    for (const path of [
      `/records?tenant=${B}`,
      "/records?limit=200",
      `/stuck?tenant=${B}`,
      `/audit?tenant=${B}`,
      `/audit?key=${stuckB}`,
      explain,
    ]) {
      const shown = await page(admin, path);
      expect(shown.status, path).toBe(200);
      // The Stuck list's links carry its filter (?stuckTenant=…): the record's path is what matters.
      expect(shown.text, `the admin's ${path} links the record`).toMatch(
        new RegExp(`href="/records/${stuckB}(\\?[^"]*)?"`),
      );
      const hidden = await page(acme, path);
      expect(hidden.status, path).toBe(200);
      expect(hidden.text.includes(`/records/${stuckB}`), `acme-support's ${path} links B's record`).toBe(false);
      // Beyond links, no trace of the key — unless the URL itself holds it (the filter form echoes
      // it) or the explainer derives it (arithmetic, not data).
      const echoes = path.includes(stuckB.slice(0, 12)) || path.startsWith("/keys");
      if (!echoes)
        expect(hidden.text.includes(stuckB.slice(0, 12)), `acme-support's ${path} shows B's ref`).toBe(false);
      if (path.startsWith("/audit?key"))
        expect(hidden.text, `acme-support's ${path}`).toContain('data-testid="audit-empty"');
      // A filter on B itself is answered as a tenant that does not exist (tenant-outside-scope.test.ts).
      if (/^\/(records|stuck|audit)\?tenant=/.test(path))
        expect(hidden.text, `acme-support's ${path}`).toContain('data-testid="unknown-tenant"');
    }
  });

  it("lookup: B's ref takes the admin to the record; for acme-support it finds nothing", async () => {
    const path = `/lookup?q=${encodeURIComponent(`charge failed (ref ${stuckB.slice(0, 12)})`)}`;
    const shown = await page(admin, path);
    expect(shown.status).toBe(307);
    expect(shown.location).toBe(`/records/${stuckB}`);
    const hidden = await page(acme, path);
    expect(hidden.status).toBe(200);
    expect(hidden.text.includes(`/records/${stuckB}`), "acme-support's lookup links B's record").toBe(false);
    expect(/an operator acted on it/.test(hidden.text), "acme-support's lookup cites B's audit entry").toBe(false);
  });

  it("metrics: tenant=B gives acme-support no per-tenant row for B", async () => {
    const tenantTable = (html: string) => /data-testid="risk-table-tenant"[\s\S]*?<\/table>/.exec(html)?.[0] ?? "";
    const shown = await page(admin, `/metrics?window=1h&tenant=${B}`);
    expect(tenantTable(shown.text)).toContain(B);
    const hidden = await page(acme, `/metrics?window=1h&tenant=${B}`);
    expect(hidden.status).toBe(200);
    expect(tenantTable(hidden.text)).not.toContain(B);
  });
});
