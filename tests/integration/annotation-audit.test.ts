import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { recordNaturallyIdempotentReview } from "@/lib/annotations/annotation-reviews";
import { buildToolsAudit, type ToolsAudit } from "@/lib/annotations/build-audit";
import { auditToMarkdown } from "@/lib/annotations/export-audit";
import { parseToolsListing } from "@/lib/annotations/parse-listing";
import { recordUploadedListing, refreshListings } from "@/lib/annotations/refresh-listings";
import { addHttpServer, addServerSchema } from "@/lib/annotations/server-store";
import type { Actor } from "@/lib/identity/actor";
import { parseConfig } from "@/lib/config/load";
import type { IdemConfig } from "@/lib/config/schema";
import { startDemoWorld, type DemoWorld } from "@/tools/demo/demo-world";
import { connectTestDb } from "../helpers/db";

const suffix = randomBytes(4).toString("hex");
const TENANT = `t_annot_${suffix}`;
const SHOP = `shop-${suffix}`;
const DOWN = `down-${suffix}`;
const EXITS = `exits-${suffix}`;
const SILENT = `silent-${suffix}`;
// Limited to this file's tenant: evidence from other test files' rows must not leak in (and is the tenant rule under test).
const admin: Actor = {
  kind: "user",
  id: "u-admin",
  name: `admin-${suffix}@annot.test`,
  displayName: "Admin",
  role: "admin",
  tenants: [TENANT],
};
const viewer: Actor = { ...admin, id: "u-viewer", name: `viewer-${suffix}@annot.test`, role: "viewer" };
const operator: Actor = { ...admin, id: "u-operator", name: `operator-${suffix}@annot.test`, role: "operator" };

describe("the annotation audit against the demo shop's MCP server", () => {
  const db = connectTestDb();
  let world: DemoWorld;
  let silent: Server;
  let config: IdemConfig;
  let client: Client;

  beforeAll(async () => {
    world = await startDemoWorld({ databaseUrl: inject("databaseUrl") });
    // Accepts the connection and never answers: the listing must give up on its own deadline.
    silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/mcp`;
    // A port that was free a moment ago: nothing listens there now.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const downUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/mcp`;
    await new Promise((resolve) => closed.close(resolve));
    config = parseConfig(
      JSON.stringify({
        tools: world.config.tools,
        // The silent server an admin adds below listens on loopback.
        outbound: { allow: ["127.0.0.1"] },
        mcpServers: [
          { name: SHOP, transport: "http", url: world.mcp.url },
          { name: DOWN, transport: "http", url: downUrl },
          {
            name: EXITS,
            transport: "stdio",
            command: process.execPath,
            args: ["-e", "console.error('boom: no config'); process.exit(3)"],
          },
        ],
      }).replaceAll(`"server":"shop"`, `"server":"${SHOP}"`),
    );
    // An admin adds the silent one in the UI (http only).
    const added = await addHttpServer(
      db,
      config,
      admin,
      addServerSchema.parse({ name: SILENT, url: silentUrl, headers: { Authorization: "Bearer secret-value" } }),
    );
    expect(added).toMatchObject({ ok: true, server: { name: SILENT, headerNames: ["Authorization"] } });
    expect(JSON.stringify(added)).not.toContain("secret-value");

    // Traffic with evidence: charge_card twice (one replay), a receipt email, two create_shipment calls.
    client = new Client({ name: "annotation-audit-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(world.mcp.url)));
    const meta = {
      "idem.demo/tenant": TENANT,
      "idem.demo/subject": "user_1",
      "idem.demo/at": new Date().toISOString(),
    };
    const call = (name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args, _meta: meta });
    await call("charge_card", { card: "c_71", amount_cents: 24000 });
    await call("charge_card", { amount_cents: 24000, card: "c_71" });
    await call("send_receipt_email", { charge_id: "ch_1", email: "a@example.com" });
    await call("create_shipment", { order_id: "o_1", address: "1 Main St", service_level: "ground" });
    await call("create_shipment", { order_id: "o_1", address: "1 Main St", service_level: "ground" });
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await world?.stop();
    await new Promise((resolve) => silent?.close(resolve));
  });

  const row = (audit: ToolsAudit, server: string, name: string) =>
    audit.tools.find((t) => t.server === server && t.name === name);
  const serverStatus = (audit: ToolsAudit, name: string) => audit.servers.find((s) => s.name === name);

  let audit: ToolsAudit;
  it("refresh lists every server at once; failures are per server with the reason; one audit row", async () => {
    const started = Date.now();
    // A viewer may not start one (it connects out): refused inside the action, nothing written.
    const auditsBefore = await db.auditLog.count({ where: { action: "tools.refresh" } });
    expect(await refreshListings(db, config, viewer, { timeoutMs: 2500 })).toMatchObject({
      ok: false,
      code: "forbidden",
    });
    expect(await db.auditLog.count({ where: { action: "tools.refresh" } })).toBe(auditsBefore);
    const refreshed = await refreshListings(db, config, operator, { timeoutMs: 2500 });
    if (!refreshed.ok) throw new Error(refreshed.message);
    const outcome = refreshed;
    expect(Date.now() - started).toBeLessThan(8_000);
    const byServer = Object.fromEntries(outcome.listings.map((l) => [l.server, l]));
    expect(byServer[SHOP]).toMatchObject({ ok: true, pages: 1 });
    expect(byServer[DOWN]).toMatchObject({ ok: false, reason: expect.stringMatching(/connection refused/) });
    expect(byServer[EXITS]).toMatchObject({ ok: false, reason: expect.stringMatching(/boom: no config/) });
    expect(byServer[SILENT]).toMatchObject({ ok: false, reason: expect.stringMatching(/no answer within 3 s/) });
    const auditRows = await db.auditLog.findMany({ where: { id: BigInt(outcome.auditId) } });
    expect(auditRows).toHaveLength(1);
    expect(auditRows[0]).toMatchObject({ action: "tools.refresh", actor: operator.name });

    audit = await buildToolsAudit(db, config, admin, "24h");
    expect(serverStatus(audit, SHOP)).toMatchObject({ status: "ok", toolCount: 6, transport: "http" });
    expect(serverStatus(audit, DOWN)).toMatchObject({
      status: "error",
      reason: expect.stringMatching(/connection refused/),
    });
    expect(serverStatus(audit, EXITS)).toMatchObject({ status: "error", transport: "stdio" });
    expect(serverStatus(audit, SILENT)).toMatchObject({
      status: "error",
      origin: "ui",
      headerNames: ["Authorization"],
    });
    expect(JSON.stringify(audit)).not.toContain("secret-value");
  });

  it("create_shipment is flagged, charge_card is backed, send_receipt_email is keyed but not claimed", () => {
    expect(row(audit, SHOP, "create_shipment")).toMatchObject({
      verdict: "claim_without_key_evidence",
      tone: "danger",
      evidence: { records: 0, lastSeen: null },
    });
    expect(row(audit, SHOP, "charge_card")).toMatchObject({
      verdict: "claim_backed_by_keys",
      declared: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      evidence: { records: 1, completed: 1, replays: 1 },
    });
    expect(row(audit, SHOP, "send_receipt_email")).toMatchObject({
      verdict: "keyed_not_claimed",
      declared: {},
      effective: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      evidence: { records: 1 },
    });
    expect(row(audit, SHOP, "get_charge_status")).toMatchObject({
      verdict: "read_only",
      verdictLabel: "as declared",
      certain: true,
      effective: { readOnlyHint: true, idempotentHint: null, destructiveHint: null },
    });
    expect(auditToMarkdown(audit)).toMatch(/\| shop\\-[0-9a-f]+ \| create\\_shipment \| unbacked \(uncertain\) \|/);
  });

  it("the summary is the count of the rows' verdicts, each under the word its rows show", async () => {
    const other = await buildToolsAudit(db, config, { ...admin, tenants: [`other-${suffix}`] }, "24h");
    for (const a of [audit, other]) {
      const byVerdict = new Map<string, { word: string; count: number }>();
      for (const t of a.tools)
        byVerdict.set(t.verdict, { word: t.verdictLabel, count: (byVerdict.get(t.verdict)?.count ?? 0) + 1 });
      expect(Object.fromEntries(a.summary.map((s) => [s.verdict, { word: s.word, count: s.count }]))).toEqual(
        Object.fromEntries(byVerdict),
      );
      const markdownLine = auditToMarkdown(a)
        .split("\n")
        .find((line) => line.startsWith("Verdicts: "));
      expect(markdownLine).toBe(`Verdicts: ${a.summary.map((s) => `${s.count} ${s.word}`).join(" · ")}.`);
    }
    // Read-only tools behaving as declared are never "uncertain" (the shop lists get_charge_status and get_shipment_status).
    for (const t of audit.tools.filter((t) => t.verdict === "read_only")) expect(t.certain, t.name).toBe(true);
  });

  it("another tenant's actor sees none of this tenant's evidence", async () => {
    const other = await buildToolsAudit(db, config, { ...admin, tenants: [`other-${suffix}`] }, "24h");
    expect(row(other, SHOP, "charge_card")).toMatchObject({
      verdict: "claim_without_key_evidence",
      certain: false,
      evidence: { records: 0, replays: 0, lastSeen: null },
    });
    expect(row(other, SHOP, "send_receipt_email")).toMatchObject({ verdict: "not_claimed", evidence: { records: 0 } });
  });

  it("an uploaded, changed listing becomes a snapshot and the diff shows what changed", async () => {
    const { tools } = await client.listTools();
    const changed = tools
      .filter((t) => t.name !== "refund_charge")
      .map((t) =>
        t.name === "create_shipment"
          ? { ...t, annotations: { ...t.annotations, idempotentHint: false } }
          : t.name === "send_receipt_email"
            ? { ...t, annotations: { idempotentHint: true } }
            : t,
      );
    const parsed = parseToolsListing(
      JSON.stringify({ jsonrpc: "2.0", id: 2, result: { tools: [...changed, { name: "void_charge" }] } }),
    );
    if (!parsed.ok) throw new Error(parsed.message);
    await recordUploadedListing(db, admin, SHOP, parsed.tools);
    const after = await buildToolsAudit(db, config, admin, "24h");
    expect(serverStatus(after, SHOP)).toMatchObject({ listingSource: "upload", toolCount: 6 });
    expect(serverStatus(after, SHOP)?.changes).toEqual([
      { tool: "create_shipment", change: "hint_flipped", hint: "idempotentHint", from: true, to: false },
      { tool: "refund_charge", change: "tool_removed" },
      { tool: "send_receipt_email", change: "hint_added", hint: "idempotentHint", to: true },
      { tool: "void_charge", change: "tool_added" },
    ]);
    expect(row(after, SHOP, "send_receipt_email")).toMatchObject({
      verdict: "claim_backed_by_keys",
      changes: ["idempotentHint: true added"],
    });
    expect(row(after, SHOP, "create_shipment")).toMatchObject({
      verdict: "not_claimed",
      changes: ["idempotentHint: true → false"],
    });
    // Put the live listing back for the next test.
    await refreshListings(db, config, admin, { timeoutMs: 2500 });
  });

  it("an admin review is audited exactly once and the verdict shows who and why", async () => {
    const before = await db.auditLog.count({ where: { action: "annotation.review", actor: admin.name } });
    expect(
      await recordNaturallyIdempotentReview(db, viewer, {
        server: SHOP,
        tool: "create_shipment",
        reason: "the carrier dedupes by order id",
      }),
    ).toMatchObject({ ok: false, code: "forbidden" });
    const outcome = await recordNaturallyIdempotentReview(db, admin, {
      server: SHOP,
      tool: "create_shipment",
      reason: "the carrier dedupes by order id itself",
    });
    expect(outcome.ok).toBe(true);
    const rows = await db.auditLog.findMany({ where: { action: "annotation.review", actor: admin.name } });
    expect(rows).toHaveLength(before + 1);
    expect(rows.at(-1)).toMatchObject({
      reason: "the carrier dedupes by order id itself",
      after: { server: SHOP, tool: "create_shipment", verdict: "naturally_idempotent" },
    });
    const reviewed = await buildToolsAudit(db, config, admin, "24h");
    expect(row(reviewed, SHOP, "create_shipment")).toMatchObject({
      verdict: "claim_reviewed_naturally_idempotent",
      explanation: expect.stringContaining(`reviewed by ${admin.name}`),
    });
  });

  it("adding a server refuses stdio and command fields, saying why; a viewer may not add one", async () => {
    for (const body of [
      { name: "x", transport: "stdio", command: "sh" },
      { name: "x", url: "http://127.0.0.1:9/mcp", command: "sh", args: [] },
    ]) {
      const parsed = addServerSchema.safeParse(body);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues.map((i) => i.message).join(" ")).toMatch(
        /stdio server runs a command on the console's host.*only in idem\.config\.json/,
      );
    }
    expect(
      await addHttpServer(
        db,
        config,
        viewer,
        addServerSchema.parse({ name: `v-${suffix}`, url: "http://127.0.0.1:9/mcp" }),
      ),
    ).toMatchObject({ ok: false, code: "forbidden" });
    expect(
      await addHttpServer(db, config, admin, addServerSchema.parse({ name: SHOP, url: "http://127.0.0.1:9/mcp" })),
    ).toMatchObject({ ok: false, code: "name_taken" });
    expect(await db.mcpServer.count({ where: { name: { in: [`v-${suffix}`, SHOP] } } })).toBe(0);
    // The one add that succeeded (beforeAll) wrote one audit row, with header names and no values; the refusals wrote none.
    const adds = await db.auditLog.findMany({ where: { action: "tools.server.add", actor: admin.name } });
    expect(adds).toHaveLength(1);
    expect(adds[0]?.after).toMatchObject({ name: SILENT, headerNames: ["Authorization"] });
    expect(JSON.stringify(adds[0]?.after)).not.toContain("secret-value");
  });

  it("records for a tool that no server lists", async () => {
    await db.idempotency.create({
      data: { key: randomBytes(32).toString("hex"), tenant: TENANT, tool: `ghost_${suffix}`, status: "completed" },
    });
    const withGhost = await buildToolsAudit(db, config, admin, "24h");
    expect(withGhost.tools.find((t) => t.name === `ghost_${suffix}`)).toMatchObject({
      server: null,
      verdict: "records_for_unlisted_tool",
      evidence: { records: 1 },
      // Three servers failed to list: any of them might list it, so the verdict does not claim certainty.
      certain: false,
      explanation: expect.stringContaining("Not every server has a listing yet"),
    });
  });
});

// The route handlers themselves, with bearer tokens: thin, but their refusals are the contract.
describe("the /api/v1/tools routes", () => {
  const db = connectTestDb();
  const tokens = { viewer: "", admin: "" };
  let routes: {
    audit: (r: Request, c: { params: Promise<Record<string, never>> }) => Promise<Response>;
    exportAudit: (r: Request, c: { params: Promise<Record<string, never>> }) => Promise<Response>;
    servers: (r: Request, c: { params: Promise<Record<string, never>> }) => Promise<Response>;
    upload: (r: Request, c: { params: Promise<Record<string, never>> }) => Promise<Response>;
    reviews: (r: Request, c: { params: Promise<Record<string, never>> }) => Promise<Response>;
  };
  const context = { params: Promise.resolve({} as Record<string, never>) };
  const send = (handler: keyof typeof routes, role: keyof typeof tokens, url: string, body?: string) =>
    routes[handler](
      new Request(`http://console.test${url}`, {
        method: body === undefined ? "GET" : "POST",
        headers: { authorization: `Bearer ${tokens[role]}`, "content-type": "application/json" },
        ...(body === undefined ? {} : { body }),
      }),
      context,
    );

  beforeAll(async () => {
    process.env.DATABASE_URL = inject("databaseUrl");
    const dir = mkdtempSync(path.join(tmpdir(), "idem-tools-api-"));
    process.env.IDEM_CONFIG = path.join(dir, "idem.config.json");
    writeFileSync(process.env.IDEM_CONFIG, JSON.stringify({ mcpServers: [], outbound: { allow: ["127.0.0.1"] } }));
    const { createToken } = await import("@/lib/auth/tokens");
    const system: Actor = {
      kind: "system",
      id: "t",
      name: `tools-api-${suffix}`,
      displayName: "t",
      role: "admin",
      tenants: [],
    };
    for (const role of ["viewer", "admin"] as const)
      tokens[role] = (
        await createToken(db, system, { name: `tools-api-${role}-${suffix}`, role, tenants: [TENANT] })
      ).token;
    routes = {
      audit: (await import("@/app/api/v1/tools/audit/route")).GET,
      exportAudit: (await import("@/app/api/v1/tools/audit/export/route")).GET,
      servers: (await import("@/app/api/v1/tools/servers/route")).POST,
      upload: (await import("@/app/api/v1/tools/upload/route")).POST,
      reviews: (await import("@/app/api/v1/tools/reviews/route")).POST,
    };
  });

  const message = async (response: Response) =>
    ((await response.json()) as { error: { message: string } }).error.message;

  it("upload: bad JSON and a wrong shape are 400s that say what is wrong; a viewer gets 403; an admin's listing is stored", async () => {
    const server = `api-up-${suffix}`;
    const bad = await send("upload", "admin", `/api/v1/tools/upload?server=${server}`, "{tools: [");
    expect(bad.status).toBe(400);
    expect(await message(bad)).toMatch(/not valid JSON/);
    const shape = await send(
      "upload",
      "admin",
      `/api/v1/tools/upload?server=${server}`,
      '{"tools": [{"annotations": {}}]}',
    );
    expect(shape.status).toBe(400);
    expect(await message(shape)).toMatch(/tools\.0\.name/);
    expect((await send("upload", "viewer", `/api/v1/tools/upload?server=${server}`, '{"tools": []}')).status).toBe(403);
    const ok = await send(
      "upload",
      "admin",
      `/api/v1/tools/upload?server=${server}`,
      JSON.stringify({ tools: [{ name: "ship", annotations: { idempotentHint: true } }] }),
    );
    expect(ok.status).toBe(201);
    const audit = (await (await send("audit", "viewer", "/api/v1/tools/audit?window=48h")).json()) as ToolsAudit;
    expect(audit.tools.find((t) => t.server === server && t.name === "ship")).toMatchObject({
      verdict: "claim_without_key_evidence",
      declared: { idempotentHint: true },
      effective: { idempotentHint: true, destructiveHint: true },
    });
    expect(audit.servers.find((s) => s.name === server)).toMatchObject({ origin: "upload", listingSource: "upload" });
  });

  it("servers: stdio is a 400 naming the config file; an http server's header values never come back", async () => {
    const stdio = await send(
      "servers",
      "admin",
      "/api/v1/tools/servers",
      JSON.stringify({ name: `api-s-${suffix}`, transport: "stdio", command: "sh" }),
    );
    expect(stdio.status).toBe(400);
    expect(await message(stdio)).toMatch(/only in idem\.config\.json/);
    const added = await send(
      "servers",
      "admin",
      "/api/v1/tools/servers",
      JSON.stringify({ name: `api-h-${suffix}`, url: "http://127.0.0.1:9/mcp", headers: { "X-Api-Key": "k-secret" } }),
    );
    expect(added.status).toBe(201);
    const text = await added.text();
    expect(text).toContain("X-Api-Key");
    expect(text).not.toContain("k-secret");
    expect(await (await send("audit", "viewer", "/api/v1/tools/audit")).text()).not.toContain("k-secret");
  });

  it("reviews need annotations:review and a reason; audit needs a known window; export serves Markdown", async () => {
    expect(
      (
        await send(
          "reviews",
          "viewer",
          "/api/v1/tools/reviews",
          JSON.stringify({ server: "s", tool: "t", reason: "a set, not an append" }),
        )
      ).status,
    ).toBe(403);
    const short = await send(
      "reviews",
      "admin",
      "/api/v1/tools/reviews",
      JSON.stringify({ server: "s", tool: "t", reason: "ok" }),
    );
    expect(short.status).toBe(400);
    expect((await send("audit", "viewer", "/api/v1/tools/audit?window=3d")).status).toBe(400);
    const md = await send("exportAudit", "viewer", "/api/v1/tools/audit/export?format=md");
    expect(md.headers.get("content-type")).toMatch(/text\/markdown/);
    expect(await md.text()).toMatch(/^# MCP tool annotation audit/);
  });
});
