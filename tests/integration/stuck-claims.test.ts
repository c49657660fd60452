import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "@/lib/identity/actor";
import { parseConfig } from "@/lib/config/load";
import {
  findOldestStuckClaim,
  loadStuckClaims,
  parseStuckQuery,
  stuckRecordsFilter,
  type StuckQuery,
} from "@/lib/records/stuck-claims";
import { decodeCursor } from "@/lib/records/list-cursor";
import type { ListOrder, PageSize } from "@/lib/records/list-filters";
import { listRecords } from "@/lib/records/list-records";
import { connectTestDb } from "../helpers/db";

const run = randomBytes(3).toString("hex");
const TENANT = `stuck-${run}`;
const OTHER = `stuck-other-${run}`;
const everyone: Actor = {
  kind: "user",
  id: "v",
  name: "viewer@stuck.test",
  displayName: "v",
  role: "viewer",
  tenants: [],
};
const config = parseConfig(
  JSON.stringify({
    tools: {
      charge_card: { stuckAfter: "5m", processor: { type: "http", baseUrl: "http://127.0.0.1:1" } },
      create_shipment: { stuckAfter: "30m" },
    },
  }),
);
const query = (extra: Partial<StuckQuery> = {}): StuckQuery => ({
  tenant: TENANT,
  tool: null,
  cursor: null,
  dir: "next",
  limit: 25,
  order: "oldest",
  ...extra,
});
const key = (n: number) => `${run}${String(n).padStart(58, "0")}`;

describe("the stuck list: per-tool thresholds, counts, tenant scope, paging", () => {
  const db = connectTestDb();
  const now = new Date();
  const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000);

  beforeAll(async () => {
    await db.idempotency.createMany({
      data: [
        { key: key(1), tenant: TENANT, tool: "charge_card", status: "in_progress", createdAt: minutesAgo(10) }, // stuck (5m)
        { key: key(2), tenant: TENANT, tool: "charge_card", status: "in_progress", createdAt: minutesAgo(90) }, // stuck, the oldest
        { key: key(3), tenant: TENANT, tool: "charge_card", status: "in_progress", createdAt: minutesAgo(2) }, // live
        { key: key(4), tenant: TENANT, tool: "create_shipment", status: "in_progress", createdAt: minutesAgo(20) }, // live: 30m threshold
        { key: key(5), tenant: TENANT, tool: "create_shipment", status: "in_progress", createdAt: minutesAgo(40) }, // stuck
        { key: key(6), tenant: TENANT, tool: null, status: "in_progress", createdAt: minutesAgo(6) }, // stuck at the default 5m
        { key: key(7), tenant: TENANT, tool: "charge_card", status: "completed", createdAt: minutesAgo(50) },
        { key: key(8), tenant: OTHER, tool: "charge_card", status: "in_progress", createdAt: minutesAgo(50) },
      ],
    });
  });

  it("lists only claims past their own tool's threshold, with counts by tool and each threshold", async () => {
    const stuck = await loadStuckClaims(db, everyone, query(), config, now);
    // Oldest first by default: the claim most at risk leads, as "next stuck claim" and a bulk plan take them.
    expect(stuck.claims.map((c) => c.key)).toEqual([key(2), key(5), key(1), key(6)]);
    expect(stuck.claims[0]?.key).toBe((await findOldestStuckClaim(db, everyone, config, now, { tenant: TENANT }))?.key);
    const newest = await loadStuckClaims(db, everyone, query({ order: "newest" }), config, now);
    expect(newest.claims.map((c) => c.key)).toEqual([key(6), key(1), key(5), key(2)]);
    expect(stuck.total).toBe(4);
    expect(stuck.oldestAgeMs).toBe(90 * 60_000);
    const counts = Object.fromEntries(
      stuck.byTool.map((t) => [t.tool ?? "(null)", [t.count, t.threshold, t.thresholdSource]]),
    );
    expect(counts).toEqual({
      charge_card: [2, "5m", "tool"],
      create_shipment: [1, "30m", "tool"],
      "(null)": [1, "5m", "default"],
    });
    expect(stuck.byTool.find((t) => t.tool === "create_shipment")?.processor).toBeNull();
  });

  it("the tool filter narrows the list, not the counts; a tenant-limited actor sees only its tenants", async () => {
    const charge = await loadStuckClaims(db, everyone, query({ tool: "charge_card" }), config, now);
    expect(charge.claims.map((c) => c.key)).toEqual([key(2), key(1)]);
    expect(charge.total).toBe(2);
    expect(charge.byTool.reduce((sum, t) => sum + t.count, 0)).toBe(4);
    const limited = await loadStuckClaims(db, { ...everyone, tenants: [OTHER] }, query({ tenant: null }), config, now);
    expect(limited.claims.map((c) => c.tenant)).toEqual([OTHER]);
  });

  it("reads tenant, tool and paging from the URL through the records parser, ignoring the rest", async () => {
    const first = await loadStuckClaims(db, everyone, query({ limit: 25 }), config, now);
    expect(first.page.links.next).toBeNull();
    const parsed = parseStuckQuery({ tenant: TENANT, limit: "25", status: "completed", refresh: "true" });
    expect(parsed).toEqual({
      ok: true,
      value: { tenant: TENANT, tool: null, cursor: null, dir: "next", limit: 25, order: "oldest" },
    });
    expect(parseStuckQuery({ limit: "7" })).toMatchObject({ ok: false, problems: [{ param: "limit" }] });
    expect(parseStuckQuery({ order: "newest" })).toMatchObject({ ok: true, value: { order: "newest" } });
    expect(parseStuckQuery({ order: "sideways" })).toEqual({
      ok: false,
      problems: [{ param: "order", message: 'order: expected oldest or newest, got "sideways"' }],
    });
  });

  it("pages one claim at a time in either order, each claim once, forwards and back; links keep newest", async () => {
    const filter = stuckRecordsFilter({ tenant: TENANT, tool: null });
    const step = (order: ListOrder, cursor: string | null, dir: "next" | "prev") =>
      listRecords(
        db,
        everyone,
        { ...filter, cursor: cursor ? decodeCursor(cursor) : null, dir, limit: 1 as PageSize },
        config,
        now,
        order,
      );
    for (const order of ["oldest", "newest"] as const) {
      const expected = order === "oldest" ? [key(2), key(5), key(1), key(6)] : [key(6), key(1), key(5), key(2)];
      const seen: string[] = [];
      let page = await step(order, null, "next");
      for (let i = 0; i < 6 && page.records[0]; i++) {
        seen.push(page.records[0].key);
        if (!page.nextCursor) break;
        page = await step(order, page.nextCursor, "next");
      }
      expect(seen, order).toEqual(expected);
      const back = await step(order, page.prevCursor, "prev");
      expect(
        back.records.map((r) => r.key),
        `${order}, one page back`,
      ).toEqual([expected[2]]);
    }
    const newest = await loadStuckClaims(db, everyone, query({ order: "newest" }), config, now);
    expect(newest.page.links.first).toContain("order=newest");
    const oldest = await loadStuckClaims(db, everyone, query(), config, now);
    expect(oldest.page.links.first).not.toContain("order=");
  });

  it("the next stuck claim offered after a resolve: the oldest one the actor can see, or none", async () => {
    const mine: Actor = { ...everyone, tenants: [TENANT] };
    expect(await findOldestStuckClaim(db, mine, config, now)).toMatchObject({
      key: key(2),
      ref: key(2).slice(0, 12),
      tenant: TENANT,
      tool: "charge_card",
    });
    // Another tenant's older claim is never offered; with none stuck in my tenants, none is.
    const other: Actor = { ...everyone, tenants: [OTHER] };
    expect((await findOldestStuckClaim(db, other, config, now))?.key).toBe(key(8));
    const nobody: Actor = { ...everyone, tenants: [`none-${run}`] };
    expect(await findOldestStuckClaim(db, nobody, config, now)).toBeNull();
    // A claim still within its threshold is not stuck: an hour earlier, only what was stuck then.
    const earlier = new Date(now.getTime() - 60 * 60_000);
    expect((await findOldestStuckClaim(db, mine, config, earlier))?.key).toBe(key(2));
  });
});
