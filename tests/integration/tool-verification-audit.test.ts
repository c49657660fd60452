import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { buildToolsAudit, type ToolsAudit } from "@/lib/annotations/build-audit";
import { auditToJson, auditToMarkdown } from "@/lib/annotations/export-audit";
import { toolsAuditContract } from "@/lib/api/contracts/tools";
import { latestVerifications } from "@/lib/annotations/latest-verifications";
import { insertSnapshot } from "@/lib/annotations/snapshot-store";
import type { VerificationEvidence } from "@/lib/annotations/tool-verification-types";
import { WITHHELD } from "@/lib/annotations/verification-for-reader";
import { parseConfig } from "@/lib/config/load";
import type { Actor } from "@/lib/identity/actor";
import type { ListedTool } from "@/lib/tool-listings/annotation-types";
import { listingEntryHash } from "@/lib/tool-listings/listing-entry-hash";
import { connectTestDb } from "../helpers/db";

// The audit's reading of stored double-call tests (tool_verification rows written here through Prisma, as the
// runner writes them): the latest per (server, tool), stale on a changed listing entry, the verdict it makes.
const suffix = randomBytes(4).toString("hex");
const STAGING = `vstage-${suffix}`;
const PROD = `vprod-${suffix}`;
const TENANT = `t_verify_${suffix}`;
const REF = `r${suffix}aaaa`;
const KEY = `${REF}${"b".repeat(52)}`;

const admin: Actor = {
  kind: "user",
  id: "u-a",
  name: `admin-${suffix}@v.test`,
  displayName: "A",
  role: "admin",
  tenants: [],
};
const viewer: Actor = { ...admin, id: "u-v", name: `viewer-${suffix}@v.test`, role: "viewer" };
const limited: Actor = { ...admin, id: "u-l", name: `limited-${suffix}@v.test`, tenants: [TENANT] };

const claim = { readOnlyHint: false, idempotentHint: true };
const schema = { type: "object", properties: { card: { type: "string" } }, required: ["card"] };
const listing: ListedTool[] = [
  { name: "pay", annotations: claim, inputSchema: schema } as ListedTool,
  { name: "ship", annotations: claim },
  { name: "change", annotations: claim },
  { name: "vanish", annotations: claim },
  { name: "notify" },
];
const entry = (name: string, tools = listing) => tools.find((t) => t.name === name) as ListedTool;

const config = parseConfig(
  JSON.stringify({
    mcpServers: [
      { name: STAGING, transport: "http", url: "http://127.0.0.1:9/mcp", verify: true },
      { name: PROD, transport: "http", url: "http://127.0.0.1:9/mcp" },
    ],
  }),
);

function evidence(overrides: Partial<VerificationEvidence> = {}): VerificationEvidence {
  return {
    calls: [
      {
        phase: "concurrent",
        keyOrder: ["card"],
        outcome: "executed",
        ref: REF,
        isError: false,
        text: JSON.stringify({ receipt: "rc_1", email: "buyer@example.com", reference: KEY }),
        ms: 412.4,
      },
      {
        phase: "concurrent",
        keyOrder: ["card"],
        outcome: "in_flight",
        ref: REF,
        isError: true,
        text: `A charge is already in progress (ref ${REF}).`,
        ms: 15,
      },
      { phase: "sequential", keyOrder: ["card"], outcome: "replayed", ref: REF, isError: false, text: "{}", ms: 9 },
    ],
    checks: [
      { step: "answers", result: "passed", detail: `one executed, 1 in flight naming ref ${REF}, the repeat replayed` },
      { step: "table", result: "passed", detail: `exactly one row, ${KEY}, completed with that response` },
      { step: "upstream", result: "passed", detail: `the processor took reference ${KEY} once` },
    ],
    rows: [{ key: KEY, status: "completed", createdAt: "2026-12-01T19:00:00.000Z" }],
    upstream: { adapter: "http", reference: KEY, sideEffects: 1, detail: `1 charge for ${KEY}` },
    hint: null,
    ...overrides,
  };
}

describe("stored double-call tests in the tool audit", () => {
  const db = connectTestDb();
  let firstSnapshot: string;

  async function insertRun(
    tool: string,
    run: {
      verdict: "verified" | "failed" | "inconclusive";
      step?: "answers" | "table" | "upstream";
      summary: string;
      finishedAt: Date;
      listingHash?: string;
      server?: string;
      evidence?: VerificationEvidence;
    },
  ): Promise<string> {
    const row = await db.toolVerification.create({
      data: {
        server: run.server ?? STAGING,
        tool,
        snapshotId: BigInt(firstSnapshot),
        listingHash: run.listingHash ?? listingEntryHash(entry(tool)),
        argumentsHash: "a".repeat(64),
        concurrency: 2,
        verdict: run.verdict,
        step: run.step ?? null,
        summary: run.summary,
        evidence: (run.evidence ?? evidence()) as object,
        startedAt: new Date(run.finishedAt.getTime() - 1000),
        finishedAt: run.finishedAt,
        verifiedBy: admin.name,
      },
    });
    return String(row.id);
  }

  const ago = (minutes: number) => new Date(Date.now() - minutes * 60_000);
  let latestPayId: string;

  beforeAll(async () => {
    firstSnapshot = await insertSnapshot(db, {
      server: STAGING,
      source: "live",
      takenBy: admin.name,
      tools: listing,
      takenAt: ago(120),
    });
    await insertSnapshot(db, { server: PROD, source: "live", takenBy: admin.name, tools: listing, takenAt: ago(120) });
    // pay: failed first, then verified twice at the same instant — the higher id wins the tie.
    await insertRun("pay", { verdict: "failed", step: "table", summary: "two rows", finishedAt: ago(60) });
    const tie = ago(10);
    await insertRun("pay", { verdict: "inconclusive", step: "answers", summary: "too fast", finishedAt: tie });
    latestPayId = await insertRun("pay", {
      verdict: "verified",
      summary: `the processor was invoked once for ${KEY}`,
      finishedAt: tie,
    });
    // Runs are per server: the same tool's run on another server is not this one's.
    await insertRun("pay", { server: PROD, verdict: "failed", step: "upstream", summary: "prod", finishedAt: ago(1) });
    await insertRun("ship", {
      verdict: "failed",
      step: "upstream",
      summary: "the carrier created 2 shipments",
      finishedAt: ago(5),
    });
    await insertRun("change", { verdict: "verified", summary: "verified before the change", finishedAt: ago(30) });
    await insertRun("vanish", { verdict: "verified", summary: "verified before it left", finishedAt: ago(30) });
    await insertRun("notify", { verdict: "verified", summary: "repeats changed nothing", finishedAt: ago(30) });
    // A newer listing: change's annotations changed, vanish is gone, the rest as they were (in another key order).
    await insertSnapshot(db, {
      server: STAGING,
      source: "live",
      takenBy: admin.name,
      takenAt: ago(2),
      tools: [
        { name: "notify" },
        { name: "change", annotations: { ...claim, destructiveHint: false } },
        { name: "ship", annotations: claim },
        {
          inputSchema: { required: ["card"], properties: { card: { type: "string" } }, type: "object" },
          annotations: { idempotentHint: true, readOnlyHint: false },
          name: "pay",
        } as ListedTool,
      ],
    });
  });

  describe("latestVerifications", () => {
    it("the newest run wins (by finished_at, then id); a changed or vanished entry makes it stale", async () => {
      const runs = await latestVerifications(db, [
        { server: STAGING, tool: "pay", current: entry("pay") },
        {
          server: STAGING,
          tool: "change",
          current: { name: "change", annotations: { ...claim, destructiveHint: false } },
        },
        { server: STAGING, tool: "vanish", current: null },
        { server: STAGING, tool: "never-verified", current: { name: "never-verified" } },
        { server: PROD, tool: "pay", current: entry("pay") },
      ]);
      expect(runs.get(`${STAGING}/pay`)).toMatchObject({ id: latestPayId, verdict: "verified", stale: false });
      expect(runs.get(`${STAGING}/change`)).toMatchObject({ verdict: "verified", stale: true });
      expect(runs.get(`${STAGING}/vanish`)).toMatchObject({ stale: true });
      expect(runs.has(`${STAGING}/never-verified`)).toBe(false);
      expect(runs.get(`${PROD}/pay`)).toMatchObject({ verdict: "failed", summary: "prod" });
      expect(await latestVerifications(db, [])).toEqual(new Map());
    });
  });

  describe("the audit", () => {
    let audit: ToolsAudit;
    const row = (a: ToolsAudit, tool: string, server = STAGING) =>
      a.tools.find((t) => t.server === server && t.name === tool);
    beforeAll(async () => {
      audit = await buildToolsAudit(db, config, admin, "24h");
    });

    it("a passing test on the current listing reads verified, the traffic evidence still beside it", () => {
      expect(row(audit, "pay")).toMatchObject({
        verdict: "claim_verified_by_test",
        verdictLabel: "verified",
        tone: "good",
        certain: true,
        evidence: { records: 0 },
        verification: { id: latestPayId, verdict: "verified", stale: false },
      });
      expect(row(audit, "pay")?.explanation).toMatch(/double-call test proved it on the current listing/);
      expect(row(audit, "pay")?.explanation).toContain("The table: 0 rows in the last 24h");
    });

    it("a failed test refutes the claim, naming the step and what was seen", () => {
      expect(row(audit, "ship")).toMatchObject({
        verdict: "claim_refuted_by_test",
        verdictLabel: "refuted",
        tone: "danger",
        verification: { verdict: "failed", step: "upstream", stale: false },
      });
      expect(row(audit, "ship")?.explanation).toContain(
        "failed at the upstream step: the carrier created 2 shipments.",
      );
      expect(row(audit, "ship")?.fix).toMatch(/Derive a key on the server/);
    });

    it("a stale test changes no verdict and says it is stale; a vanished tool has no row", () => {
      expect(row(audit, "change")).toMatchObject({
        verdict: "claim_without_key_evidence",
        verification: { verdict: "verified", stale: true },
      });
      expect(row(audit, "change")?.explanation).toMatch(/is stale: the tool's listing entry has changed since/);
      expect(row(audit, "vanish")).toBeUndefined();
      // A tool that claims nothing, verified: the claim may be made.
      expect(row(audit, "notify")).toMatchObject({ verdict: "not_claimed", verification: { verdict: "verified" } });
      expect(row(audit, "notify")?.explanation).toMatch(/idempotentHint: true may be set/);
    });

    it("only the file's verify: true server is verifiable; its runs are its own", () => {
      expect(audit.servers.find((s) => s.name === STAGING)?.verifiable).toBe(true);
      expect(audit.servers.find((s) => s.name === PROD)?.verifiable).toBe(false);
      expect(row(audit, "pay", PROD)).toMatchObject({
        verdict: "claim_refuted_by_test",
        verification: { summary: "prod" },
      });
      expect(audit.summary.find((s) => s.verdict === "claim_verified_by_test")).toMatchObject({
        word: "verified",
        count: 1,
      });
    });

    it("every reader sees the answers masked; a viewer sees the same run as an admin", async () => {
      const text = row(audit, "pay")?.verification?.evidence.calls[0]?.text ?? "";
      expect(text).not.toContain("buyer@example.com");
      expect(text).toContain("[redacted]");
      const asViewer = await buildToolsAudit(db, config, viewer, "24h");
      expect(row(asViewer, "pay")?.verification).toEqual(row(audit, "pay")?.verification);
      // Unlimited readers see the run's table rows and refs.
      expect(row(audit, "pay")?.verification?.evidence.rows).toEqual([
        { key: KEY, status: "completed", createdAt: "2026-12-01T19:00:00.000Z" },
      ]);
    });

    it("an actor limited to tenants gets the verdict and each side's finding, not the run's keys, refs or answers", async () => {
      const mine = await buildToolsAudit(db, config, limited, "24h");
      const run = row(mine, "pay")?.verification;
      expect(row(mine, "pay")?.verdict).toBe("claim_verified_by_test");
      expect(run?.evidence.rows).toEqual([]);
      expect(run?.evidence.calls.map((c) => [c.outcome, c.ref, c.text])).toEqual([
        ["executed", null, WITHHELD],
        ["in_flight", null, WITHHELD],
        ["replayed", null, WITHHELD],
      ]);
      expect(run?.evidence.checks.map((c) => c.result)).toEqual(["passed", "passed", "passed"]);
      expect(JSON.stringify(row(mine, "pay"))).not.toContain(REF);
      expect(run?.summary).toBe(`the processor was invoked once for ${WITHHELD}`);
    });

    it("the Markdown and JSON exports carry the latest test", () => {
      const markdown = auditToMarkdown(audit);
      expect(markdown).toContain("| double-call test |");
      expect(markdown).toMatch(/\| pay \| verified \|.*\| verified \|$/m);
      expect(markdown).toMatch(/\| ship \| refuted \|.*\| failed \(upstream\) \|$/m);
      expect(markdown).toMatch(/\| change \| unbacked \(uncertain\) \|.*\| verified, stale \|$/m);
      expect(markdown).toContain("**Double-call test:** failed (upstream) — run by");
      expect(markdown).toContain("- upstream: passed — the processor took reference");
      expect(markdown).toContain("- call (concurrent): in_flight — ref");
      const json = JSON.parse(auditToJson(audit)) as ToolsAudit;
      // The API's answer (and this export) is the contract's shape, the verification closed-checked.
      expect(toolsAuditContract.responses[200].schema.safeParse(json).error).toBeUndefined();
      const broken = structuredClone(json);
      (broken.tools.find((t) => t.verification)!.verification as { stale: unknown }).stale = "no";
      expect(toolsAuditContract.responses[200].schema.safeParse(broken).success).toBe(false);
      expect(json.tools.find((t) => t.server === STAGING && t.name === "ship")?.verification).toMatchObject({
        verdict: "failed",
        step: "upstream",
        summary: "the carrier created 2 shipments",
        stale: false,
      });
    });
  });
});
