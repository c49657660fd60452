import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildToolsAudit } from "@/lib/annotations/build-audit";
import { refreshListings } from "@/lib/annotations/refresh-listings";
import { addHttpServer, addServerSchema } from "@/lib/annotations/server-store";
import type { Actor } from "@/lib/identity/actor";
import { parseConfig } from "@/lib/config/load";
import { connectTestDb } from "../helpers/db";
import { REFUSED_URLS } from "../helpers/bad-inputs";

const run = randomBytes(3).toString("hex");
const admin: Actor = {
  kind: "user",
  id: "u-out",
  name: `out-${run}@policy.test`,
  displayName: "Admin",
  role: "admin",
  tenants: [],
};
const SECRET_BODY = `SECRET-BODY-${run}: {"AccessKeyId": "ASIA…"}`;

// Admin-added MCP server URLs and the outbound policy, through the real add and refresh paths.
describe("the outbound policy on servers an admin adds", () => {
  const db = connectTestDb();
  let target: Server;
  let port = 0;
  let requests = 0;

  beforeAll(async () => {
    // A loopback HTTP server that answers like something that is not an MCP server, with a body worth stealing.
    target = createServer((_req, res) => {
      requests += 1;
      res.writeHead(404, { "content-type": "text/plain" }).end(SECRET_BODY);
    });
    await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve));
    port = (target.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => target.close(resolve)));

  const refresh = async (config: ReturnType<typeof parseConfig>) => {
    const outcome = await refreshListings(db, config, admin, { timeoutMs: 3_000 });
    if (!outcome.ok) throw new Error(outcome.message);
    return outcome;
  };
  const add = (name: string, url: string, allow: string[] = []) =>
    addHttpServer(
      db,
      parseConfig(JSON.stringify({ outbound: { allow } })),
      admin,
      addServerSchema.parse({ name, url }),
    );

  it("refuses every non-public spelling, stores nothing and audits nothing", async () => {
    const before = await db.auditLog.count({ where: { action: "tools.server.add" } });
    const http = REFUSED_URLS.filter(([, url]) => url.startsWith("http"));
    for (const [label, url] of http) {
      const outcome = await add(`refused-${run}-${label.replace(/[^a-z0-9]+/gi, "-")}`.slice(0, 100), url);
      expect(outcome, label).toMatchObject({
        ok: false,
        code: "outbound_refused",
        message: expect.stringMatching(/may not connect to .*outbound\.allow/),
      });
    }
    expect(await db.mcpServer.count({ where: { name: { startsWith: `refused-${run}` } } })).toBe(0);
    expect(await db.auditLog.count({ where: { action: "tools.server.add" } })).toBe(before);
    expect(requests).toBe(0);
  });

  it("lets an allowed host through; a refresh under a policy that no longer allows it connects to nothing", async () => {
    const name = `allowed-${run}`;
    expect(await add(name, `http://127.0.0.1:${port}/mcp`, ["127.0.0.1"])).toMatchObject({ ok: true });
    const { listings } = await refresh(parseConfig("{}"));
    expect(listings.find((l) => l.server === name)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^refused by the outbound policy: 127\.0\.0\.1 is a loopback address/),
    });
    expect(requests).toBe(0);
  });

  it("says what failed in its own words, never the target's body, and shows URLs without credentials or query values", async () => {
    const name = `leaky-${run}`;
    const url = `http://probe:hunter2@127.0.0.1:${port}/mcp?api_key=sk_live_${run}`;
    const added = await add(name, url, ["127.0.0.1"]);
    expect(added).toMatchObject({ ok: true, server: { target: `http://127.0.0.1:${port}/mcp?api_key=…` } });
    const config = parseConfig(JSON.stringify({ outbound: { allow: ["127.0.0.1"] } }));
    const { listings } = await refresh(config);
    expect(requests).toBeGreaterThan(0);
    const reason = listings.find((l) => l.server === name);
    expect(reason).toMatchObject({ ok: false, reason: expect.stringMatching(/HTTP 404/) });
    const everything = JSON.stringify(
      {
        listings,
        audit: await buildToolsAudit(db, config, { ...admin, role: "viewer" }, "24h"),
        log: await db.auditLog.findMany({ where: { action: { in: ["tools.server.add", "tools.refresh"] } } }),
      },
      (_key, value: unknown) => (typeof value === "bigint" ? String(value) : value),
    );
    for (const secret of [SECRET_BODY.slice(0, 20), "hunter2", `sk_live_${run}`])
      expect(everything).not.toContain(secret);
    // Stored whole: the console still reaches the server with its credentials.
    expect((await db.mcpServer.findUnique({ where: { name } }))?.url).toBe(url);
  });
});
