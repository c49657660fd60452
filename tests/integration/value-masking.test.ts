import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { createDemoOutbox } from "@/tools/demo/mcp/demo-outbox";
import { startDemoProcessor } from "@/tools/demo/upstream/processor-server";
import { routeHandler, type ApiRoutePath } from "../helpers/api-routes";
import { connectTestDb } from "../helpers/db";
import { systemAdmin } from "../helpers/system-admin";

// Personal data masked by value, wherever a writer put it: the demo's send_receipt_email responses
// ({"to": "user_24@globex.example"}, a field no redaction path names) and a writer that stores card
// numbers under odd names — on the record page's API, the list, both exports, lookup and the audit
// log's snapshots, for a viewer; the operator's audited reveal still shows them.
process.env.DATABASE_URL = inject("databaseUrl");
const processor = await startDemoProcessor();
const configDir = mkdtempSync(path.join(tmpdir(), "idem-value-mask-"));
process.env.IDEM_CONFIG = path.join(configDir, "idem.config.json");
writeFileSync(
  process.env.IDEM_CONFIG,
  JSON.stringify({ tools: { charge_card: { stuckAfter: "5m", processor: { type: "http", baseUrl: processor.url } } } }),
);

const run = randomBytes(3).toString("hex");
const TENANT = `vmask-${run}`;
const system = systemAdmin("vmask");
const keyOf = (label: string) => createHash("sha256").update(`vmask|${run}|${label}`).digest("hex");
const EMAILS = Array.from({ length: 5 }, (_, i) => `user_${i}.${run}@globex.example`);
const PANS = ["4242424242424242", "5555 5555 5555 4444", "3782-822463-10005"];

describe("value masking of e-mail addresses and card numbers", () => {
  const db = connectTestDb();
  const tokens = { viewer: "", operator: "" };

  beforeAll(async () => {
    tokens.viewer = (
      await createToken(db, system, { name: `vmask-v-${run}`, role: "viewer", tenants: [TENANT] })
    ).token;
    tokens.operator = (
      await createToken(db, system, { name: `vmask-o-${run}`, role: "operator", tenants: [TENANT] })
    ).token;
    const outbox = createDemoOutbox();
    for (const [i, to] of EMAILS.entries()) {
      const key = keyOf(`receipt-${i}`);
      const response = { status: "sent", ...outbox.send({ to, chargeId: `ch_${i}`, key, at: new Date() }) };
      await db.$executeRaw`INSERT INTO idempotency (key, tenant, subject, tool, status, response, created_at, updated_at) VALUES (${key}, ${TENANT}, 'cust', 'send_receipt_email', 'completed', ${JSON.stringify(response)}::jsonb, now() - interval '10 minutes', now() - interval '10 minutes')`;
    }
    const odd = {
      result: { pmt: { ref_x: PANS[0], nested: [{ v: PANS[1] }] }, memo: `card ${PANS[2]} ok`, n: 4111111111111111 },
    };
    await db.$executeRaw`INSERT INTO idempotency (key, tenant, subject, tool, status, response, created_at, updated_at) VALUES (${keyOf("pan")}, ${TENANT}, 'cust', 'charge_card', 'completed', ${JSON.stringify(odd)}::jsonb, now() - interval '9 minutes', now() - interval '9 minutes')`;
    // A stuck claim the processor never saw: released, so its snapshot (with a PAN in it) lands in the audit log.
    await db.$executeRaw`INSERT INTO idempotency (key, tenant, subject, tool, status, response, created_at) VALUES (${keyOf("stuck")}, ${TENANT}, 'cust', 'charge_card', 'in_progress', ${JSON.stringify({ partial: { cc: PANS[0], mail: EMAILS[0] } })}::jsonb, now() - interval '1 hour')`;
  });
  afterAll(() => processor.stop());

  const call = async (
    route: ApiRoutePath,
    method: "GET" | "POST",
    url: string,
    token: string,
    options: { body?: unknown; params?: Record<string, string> } = {},
  ) => {
    const handler = await routeHandler(route, method);
    const request = new Request(`http://console.test${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const response = await handler(request, { params: Promise.resolve(options.params ?? {}) });
    return { status: response.status, text: await response.text() };
  };
  const leaks = (text: string) => [...EMAILS, ...PANS, "4111111111111111"].filter((secret) => text.includes(secret));

  it("a viewer sees none of them anywhere", async () => {
    const released = await call(
      "records/[key]/resolve",
      "POST",
      `/api/v1/records/${keyOf("stuck")}/resolve`,
      tokens.operator,
      {
        body: { action: "release", reason: "processor never saw it", expectedUpdatedAt: null },
        params: { key: keyOf("stuck") },
      },
    );
    expect(released.status, released.text).toBe(200);
    const answers = {
      list: await call("records", "GET", `/api/v1/records?tenant=${TENANT}`, tokens.viewer),
      csv: await call("records/export", "GET", `/api/v1/records/export?format=csv&tenant=${TENANT}`, tokens.viewer),
      json: await call("records/export", "GET", `/api/v1/records/export?format=json&tenant=${TENANT}`, tokens.viewer),
      receipt: await call("records/[key]", "GET", `/api/v1/records/${keyOf("receipt-0")}`, tokens.viewer, {
        params: { key: keyOf("receipt-0") },
      }),
      pan: await call("records/[key]", "GET", `/api/v1/records/${keyOf("pan")}`, tokens.viewer, {
        params: { key: keyOf("pan") },
      }),
      audit: await call("audit", "GET", `/api/v1/audit?tenant=${TENANT}`, tokens.viewer),
      lookup: await call("lookup", "GET", `/api/v1/lookup?q=${keyOf("stuck").slice(0, 12)}`, tokens.viewer),
    };
    for (const [name, answer] of Object.entries(answers)) {
      expect(answer.status, `${name}: ${answer.text.slice(0, 200)}`).toBe(200);
      expect(leaks(answer.text), name).toEqual([]);
    }
    // The CSV held every receipt row, masked: the rows are there, the addresses are not.
    expect(answers.csv.text.split("\n").filter((line) => line.includes("send_receipt_email"))).toHaveLength(
      EMAILS.length,
    );
    expect(answers.receipt.text).toContain("[redacted]");
  });

  it("an operator's audited reveal shows them, and names where they were", async () => {
    const revealed = await call(
      "records/[key]/reveal",
      "POST",
      `/api/v1/records/${keyOf("pan")}/reveal`,
      tokens.operator,
      { body: { reason: "customer dispute, ticket 42" }, params: { key: keyOf("pan") } },
    );
    expect(revealed.status, revealed.text).toBe(200);
    const body = JSON.parse(revealed.text) as { response: unknown; revealedPaths: string[] };
    expect(JSON.stringify(body.response)).toContain(PANS[0]);
    expect(body.revealedPaths).toEqual(
      expect.arrayContaining(["$['result']['pmt']['ref_x']", "$['result']['memo']", "$['result']['n']"]),
    );
  });
});
