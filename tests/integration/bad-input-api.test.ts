import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { connectTestDb } from "../helpers/db";
import {
  BAD_JSON_TEXTS,
  BAD_STRINGS,
  WRONG_TYPES,
  describeValue,
  expectCleanAnswer,
  isWellFormed,
} from "../helpers/bad-inputs";
import { routeHandler, type ApiRoutePath, type RouteHandler } from "../helpers/api-routes";
import { systemAdmin } from "../helpers/system-admin";

// Every /api/v1 route handler, called directly with a bearer token, fed the bad-input catalogue
// in each query parameter, path parameter and JSON body field. Each answer is a clean 4xx JSON
// refusal or a harmless answer, never a 500 or a stack trace, and nothing in the database changes.
process.env.DATABASE_URL = inject("databaseUrl");
const configDir = mkdtempSync(path.join(tmpdir(), "idem-bad-input-"));
process.env.IDEM_CONFIG = path.join(configDir, "idem.config.json");
// A processor that answers nothing: no request of this sweep may get as far as asking one.
writeFileSync(
  process.env.IDEM_CONFIG,
  JSON.stringify({
    tools: {
      charge_card: { stuckAfter: "5m", processor: { type: "http", baseUrl: "http://127.0.0.1:1", timeout: "1s" } },
    },
    redact: ["$..card"],
    outbound: { allow: ["127.0.0.1"] },
  }),
);

const route = routeHandler;
type Handler = RouteHandler;

const run = randomBytes(3).toString("hex");
const TENANT = `bad-${run}`;
const ABSENT_KEY = createHash("sha256").update(`absent|${run}`).digest("hex");
const STUCK_KEY = createHash("sha256").update(`stuck|${run}`).digest("hex");
const system = systemAdmin("bad-input-test");

/** Names that are valid for name fields (server, tool): accepted by design, so not bad input there. */
const isServerName = (value: string) => /^[A-Za-z0-9_.:-]{1,100}$/.test(value);
const isToolName = (value: string) => /^[^\s\u0000-\u001f\u007f]{1,200}$/.test(value) && isWellFormed(value);
const isReason = (value: string) =>
  value.trim().length >= 10 && value.length <= 2000 && isWellFormed(value) && !value.includes("\u0000");
const isHeaderValue = (value: string) =>
  /^[^\u0000-\u0008\u000a-\u001f\u007f]{0,4096}$/.test(value) && isWellFormed(value);

/** Values a create request rightly accepts in this field: not bad input there. */
function legitimateFor(file: string, field: string, value: string): boolean {
  if (file === "tools/reviews")
    return field === "server"
      ? isServerName(value)
      : field === "tool"
        ? isToolName(value)
        : field === "reason"
          ? isReason(value)
          : false;
  if (file === "tools/servers") return field === "headers.x-token" && isHeaderValue(value);
  return false;
}

describe("bad input to every /api/v1 route", () => {
  const db = connectTestDb();
  let token = "";
  let tokenName = "";
  let tried = 0;
  const statuses = new Map<number, number>();

  beforeAll(async () => {
    tokenName = `bad-input-admin-${run}`;
    ({ token } = await createToken(db, system, { name: tokenName, role: "admin", tenants: [TENANT] }));
    await db.$executeRaw`INSERT INTO idempotency (key, tenant, tool, status, response, created_at) VALUES (${STUCK_KEY}, ${TENANT}, 'charge_card', 'in_progress', NULL, now() - interval '2 hours')`;
  });
  afterAll(() => {
    console.log(
      `bad-input API sweep: ${tried} bad inputs tried; answers by status: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
    );
  });

  /** What the sweep must not change: this tenant's rows, and anything its token would have audited or created. */
  async function fingerprint() {
    const [rows] = await db.$queryRaw<{ checksum: string | null; count: bigint }[]>`
      SELECT md5(string_agg(key || status || coalesce(response::text, '') || coalesce(updated_at::text, ''), ',' ORDER BY key)) AS checksum, count(*) AS count FROM idempotency WHERE tenant = ${TENANT}`;
    return {
      rows,
      events: await db.idempotencyEvent.count({ where: { tenant: TENANT } }),
      audit: await db.auditLog.count({ where: { actor: { contains: tokenName } } }),
      servers: await db.mcpServer.count({ where: { createdBy: { contains: tokenName } } }),
      snapshots: await db.toolSnapshot.count({ where: { takenBy: { contains: tokenName } } }),
      reviews: await db.annotationReview.count({ where: { reviewedBy: { contains: tokenName } } }),
      verifications: await db.toolVerification.count({ where: { verifiedBy: { contains: tokenName } } }),
      tokens: await db.apiToken.count(),
    };
  }

  async function send(
    handler: Handler,
    method: "GET" | "POST",
    url: string,
    init: { body?: string; params?: Record<string, string> } = {},
    context = url,
  ) {
    const request = new Request(`http://console.test${url}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(init.body !== undefined ? { body: init.body } : {}),
    });
    const response = await handler(request, { params: Promise.resolve(init.params ?? {}) });
    tried += 1;
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    if (response.status === 201) failures.push(`${context}: created something (201)`);
    // Gather every failure of a test, so one run lists them all.
    await expectCleanAnswer(response, context).catch((error: Error) =>
      failures.push(error.message.split("\n")[0]!.slice(0, 400)),
    );
  }
  const failures: string[] = [];
  afterEach(() => {
    const found = failures.splice(0);
    expect(found).toEqual([]);
  });

  const query = (base: Record<string, string>, name: string, value: string) =>
    new URLSearchParams({ ...base, [name]: value }).toString();

  it("query parameters of every GET route", { timeout: 120_000 }, async () => {
    const before = await fingerprint();
    const gets: [file: ApiRoutePath, base: Record<string, string>, params: string[]][] = [
      [
        "records",
        { tenant: TENANT },
        ["tenant", "subject", "tool", "status", "stuck", "from", "to", "cursor", "dir", "limit", "bogus"],
      ],
      [
        "records/export",
        { tenant: TENANT, format: "json" },
        ["format", "tenant", "subject", "tool", "status", "stuck", "from", "to", "limit", "cursor", "bogus"],
      ],
      ["lookup", {}, ["q"]],
      [
        "keys/explain",
        { tenant: TENANT, tool: "charge_card", args: "{}" },
        ["tenant", "subject", "tool", "args", "at", "window", "scheme", "compare", "bogus"],
      ],
      ["audit", { tenant: TENANT }, ["actor", "action", "key", "tenant", "from", "to", "cursor", "limit", "bogus"]],
      ["tools/audit", {}, ["window", "bogus"]],
      ["tools/audit/export", {}, ["format", "window"]],
      ["metrics", { tenant: TENANT }, ["window", "tool", "tenant", "bogus"]],
      ["duplicates", { tenant: TENANT }, ["window", "tool", "tenant", "limit", "cursor", "bogus"]],
      ["me", {}, ["bogus"]],
    ];
    for (const [file, base, params] of gets) {
      const handler = await route(file, "GET");
      for (const param of params) {
        for (const [label, value] of BAD_STRINGS) {
          await send(
            handler,
            "GET",
            `/api/v1/${file}?${query(base, param, value)}`,
            {},
            `GET ${file} ?${param}= ${label}`,
          );
        }
        // The same parameter twice, and a parameter with no value at all.
        await send(
          handler,
          "GET",
          `/api/v1/${file}?${new URLSearchParams([...Object.entries(base), [param, "a"], [param, "b"]])}`,
          {},
          `GET ${file} ?${param} twice`,
        );
        await send(handler, "GET", `/api/v1/${file}?${param}`, {}, `GET ${file} ?${param} bare`);
      }
      // Raw, broken percent-encoding straight into the URL.
      await send(
        handler,
        "GET",
        `/api/v1/${file}?${params[0]}=%E0%A4%A&${params[0]}=%00%ZZ`,
        {},
        `GET ${file} broken encoding`,
      );
    }
    expect(await fingerprint()).toEqual(before);
  });

  it(
    "the record key in the path of GET /records/{key}, /check, /check-arguments, /resolve and /reveal",
    { timeout: 120_000 },
    async () => {
      const before = await fingerprint();
      const handlers = {
        get: await route("records/[key]", "GET"),
        check: await route("records/[key]/check", "POST"),
        checkArguments: await route("records/[key]/check-arguments", "POST"),
        resolve: await route("records/[key]/resolve", "POST"),
        reveal: await route("records/[key]/reveal", "POST"),
      };
      const body = JSON.stringify({ action: "complete", reason: "bad input sweep", expectedUpdatedAt: null });
      const keys: (readonly [string, string])[] = [
        ...BAD_STRINGS,
        ["raw %", "%E0%A4%A"],
        ["encoded NUL", "%00"],
        ["encoded slash", "..%2F..%2F"],
        ["absent key", ABSENT_KEY],
        ["absent ref", ABSENT_KEY.slice(0, 12)],
      ];
      for (const [label, key] of keys) {
        const params = { key };
        await send(handlers.get, "GET", `/api/v1/records/x`, { params }, `GET records/{key} ${label}`);
        await send(handlers.check, "POST", `/api/v1/records/x/check`, { params }, `POST records/{key}/check ${label}`);
        await send(
          handlers.checkArguments,
          "POST",
          `/api/v1/records/x/check-arguments`,
          { params, body: JSON.stringify({ args: "{}" }) },
          `POST records/{key}/check-arguments ${label}`,
        );
        await send(
          handlers.resolve,
          "POST",
          `/api/v1/records/x/resolve`,
          { params, body },
          `POST records/{key}/resolve ${label}`,
        );
        await send(
          handlers.reveal,
          "POST",
          `/api/v1/records/x/reveal`,
          { params, body: JSON.stringify({ reason: "bad input sweep" }) },
          `POST records/{key}/reveal ${label}`,
        );
      }
      expect(await fingerprint()).toEqual(before);
    },
  );

  it(
    "JSON bodies of every POST route: broken JSON, wrong types, every field with every bad value",
    { timeout: 120_000 },
    async () => {
      const before = await fingerprint();
      // Each base body is harmless when valid: it names a claim that does not exist, a dry run, or
      // is invalid in another field (for the routes whose only valid request creates something).
      const posts: [
        file: ApiRoutePath,
        url: string,
        params: Record<string, string>,
        base: Record<string, unknown>,
        fields: string[],
      ][] = [
        [
          "records/[key]/resolve",
          `/api/v1/records/${ABSENT_KEY}/resolve`,
          { key: ABSENT_KEY },
          { action: "complete", reason: "bad input sweep", expectedUpdatedAt: null },
          [
            "action",
            "reason",
            "expectedUpdatedAt",
            "force",
            "confirm",
            "nextStuckWithin",
            "nextStuckWithin.tool",
            "bogus",
          ],
        ],
        [
          "records/[key]/resolve",
          `/api/v1/records/${STUCK_KEY}/resolve`,
          { key: STUCK_KEY },
          { action: "release", reason: "x", expectedUpdatedAt: null },
          ["action", "expectedUpdatedAt", "force", "confirm"],
        ],
        [
          "records/[key]/check-arguments",
          `/api/v1/records/${STUCK_KEY}/check-arguments`,
          { key: STUCK_KEY },
          { args: '{"amount_cents": 900}', window: 900, reference: null },
          ["args", "window", "reference", "bogus"],
        ],
        [
          "records/[key]/reveal",
          `/api/v1/records/${ABSENT_KEY}/reveal`,
          { key: ABSENT_KEY },
          { reason: "bad input sweep" },
          ["reason", "bogus"],
        ],
        [
          "bulk/plan",
          "/api/v1/bulk/plan",
          {},
          { keys: [ABSENT_KEY] },
          ["keys", "keys.0", "filter", "filter.tenant", "filter.tool", "bogus"],
        ],
        [
          "bulk/apply",
          "/api/v1/bulk/apply",
          {},
          { reason: "bad input sweep", rows: [{ key: ABSENT_KEY, action: "complete", expectedUpdatedAt: null }] },
          [
            "reason",
            "rows",
            "rows.0",
            "rows.0.key",
            "rows.0.action",
            "rows.0.expectedUpdatedAt",
            "nextStuckWithin",
            "nextStuckWithin.tenant",
            "bogus",
          ],
        ],
        [
          "reconcile",
          "/api/v1/reconcile",
          {},
          { filter: { keys: [ABSENT_KEY] }, dryRun: false },
          ["filter", "filter.keys", "filter.keys.0", "filter.limit", "dryRun", "bogus"],
        ],
        [
          "reconcile",
          "/api/v1/reconcile",
          {},
          { filter: { tenant: TENANT }, dryRun: true },
          ["filter.tenant", "filter.tool", "filter.olderThan", "filter.limit"],
        ],
        [
          "tools/servers",
          "/api/v1/tools/servers",
          {},
          { name: `sweep-${run}`, url: "ftp://not-http.example" },
          ["name", "transport", "headers", "command", "bogus"],
        ],
        [
          "tools/servers",
          "/api/v1/tools/servers",
          {},
          { name: `sweep-${run}`, url: "http://127.0.0.1:1/mcp" },
          ["url", "headers.x-token", "transport"],
        ],
        [
          "tools/reviews",
          "/api/v1/tools/reviews",
          {},
          { server: `sweep-${run}`, tool: "t", reason: "short" },
          ["server", "tool", "bogus"],
        ],
        [
          "tools/reviews",
          "/api/v1/tools/reviews",
          {},
          { server: `sweep-${run}`, tool: "t", reason: "the tool sets a value; repeating it changes nothing" },
          ["server", "tool", "reason"],
        ],
        [
          // A server the file does not name: whatever else is sent, nothing is called.
          "tools/verifications",
          "/api/v1/tools/verifications",
          {},
          { server: `sweep-${run}`, tool: "charge_card", arguments: { card: "c_4242" }, concurrency: 2 },
          ["server", "tool", "arguments", "arguments.card", "concurrency", "bogus"],
        ],
      ];
      const set = (base: Record<string, unknown>, dotted: string, value: unknown) => {
        const copy = structuredClone(base) as Record<string, unknown>;
        const parts = dotted.split(".");
        let target: Record<string, unknown> = copy;
        for (const part of parts.slice(0, -1)) {
          if (typeof target[part] !== "object" || target[part] === null) target[part] = {};
          target = target[part] as Record<string, unknown>;
        }
        target[parts.at(-1)!] = value;
        return copy;
      };
      for (const [file, url, params, base, fields] of posts) {
        const handler = await route(file, "POST");
        const validAsIs =
          file === "tools/reviews"
            ? isReason(String(base.reason))
            : file === "tools/servers"
              ? String(base.url).startsWith("http")
              : true;
        for (const [label, text] of BAD_JSON_TEXTS)
          await send(handler, "POST", url, { params, body: text }, `POST ${file} body ${label}`);
        for (const field of fields) {
          for (const [label, value] of BAD_STRINGS) {
            // Sent with an otherwise valid create request, a legitimate name or reason would rightly create something.
            if (validAsIs && legitimateFor(file, field, value)) continue;
            await send(
              handler,
              "POST",
              url,
              { params, body: JSON.stringify(set(base, field, value)) },
              `POST ${file} ${field}=${label} ${describeValue(value)}`,
            );
          }
          for (const [label, value] of WRONG_TYPES)
            await send(
              handler,
              "POST",
              url,
              { params, body: JSON.stringify(set(base, field, value)) },
              `POST ${file} ${field} as ${label}`,
            );
        }
      }
      expect(await fingerprint()).toEqual(before);
    },
  );

  it("tools/upload: the server parameter and the listing body", { timeout: 120_000 }, async () => {
    const before = await fingerprint();
    const handler = await route("tools/upload", "POST");
    const listing = JSON.stringify({ tools: [{ name: "t", inputSchema: { type: "object" } }] });
    for (const [label, value] of BAD_STRINGS) {
      if (/^[A-Za-z0-9_.:-]{1,100}$/.test(value)) continue; // a legitimate server name
      await send(
        handler,
        "POST",
        `/api/v1/tools/upload?${new URLSearchParams({ server: value })}`,
        { body: listing },
        `POST tools/upload ?server=${label}`,
      );
    }
    // Listings that are not a tools/list result, under a valid server name.
    for (const [label, text] of [
      ...BAD_JSON_TEXTS,
      ["tools not an array", '{"tools": "x"}'],
      ["tool without a name", '{"tools": [{}]}'],
      ["NUL tool name", '{"tools": [{"name": "a\\u0000b", "inputSchema": {"type": "object"}}]}'],
      ["lone surrogate tool name", '{"tools": [{"name": "\\ud800", "inputSchema": {"type": "object"}}]}'],
    ] as const) {
      await send(
        handler,
        "POST",
        `/api/v1/tools/upload?server=sweep-${run}`,
        { body: text },
        `POST tools/upload body ${label}`,
      );
    }
    expect(await fingerprint()).toEqual(before);
  });
});
