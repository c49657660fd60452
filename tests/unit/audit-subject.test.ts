import { describe, expect, it } from "vitest";
import { auditSubject } from "@/lib/audit/audit-subject";

const none = { before: null, after: null, evidence: null };

describe("what a non-record audit entry is about, for the list's About column", () => {
  it.each([
    [
      "tool.verify",
      { ...none, after: { server: "demo-shop", tool: "charge_card", verdict: "refuted" } },
      { label: "demo-shop / charge_card: refuted", href: "/tools" },
    ],
    [
      "annotation.review",
      { ...none, after: { server: "demo-shop", tool: "get_order", verdict: "naturally_idempotent" } },
      { label: "demo-shop / get_order: reviewed", href: "/tools" },
    ],
    ["tools.server.add", { ...none, after: { name: "billing" } }, { label: "server billing", href: "/tools" }],
    [
      "tools.upload",
      { ...none, after: { server: "billing", tools: ["a", "b", "c"] } },
      { label: "billing: 3 tools", href: "/tools" },
    ],
    [
      "tools.refresh",
      {
        ...none,
        after: {
          servers: [
            { server: "demo-shop", ok: true },
            { server: "billing", ok: false },
          ],
        },
      },
      { label: "demo-shop, billing", href: "/tools" },
    ],
    ["token.create", { ...none, after: { name: "ci", role: "viewer" } }, { label: "token ci (viewer)", href: null }],
    ["token.revoke", { ...none, before: { name: "ci" } }, { label: "token ci", href: null }],
    [
      "metrics.recount",
      { ...none, evidence: { from: "2026-12-01T10:00:00.000Z", hours: 3 } },
      { label: "metrics from 2026-12-01T10:00:00.000Z", href: "/metrics" },
    ],
    [
      "retention.trim_events",
      { ...none, evidence: { deleted: 12000, cutoff: "2026-11-30T00:00:00.000Z" } },
      { label: "12,000 events before 2026-11-30T00:00:00.000Z", href: null },
    ],
    [
      "user.disable",
      { ...none, after: { id: "u1", email: "ops@example.test", role: "operator" } },
      { label: "user ops@example.test (operator)", href: null },
    ],
    // The default redaction masks e-mails: the name, or the id, says who instead of "user [redacted]".
    [
      "user.create",
      { ...none, after: { id: "u2", email: "[redacted]", name: "Omar", role: "operator" } },
      { label: "user Omar (operator)", href: null },
    ],
    [
      "user.update",
      { ...none, after: { id: "u3", email: "[redacted]", name: null, role: "admin" } },
      { label: "user #u3 (admin)", href: null },
    ],
    [
      "tool.verify",
      { ...none, after: { server: "shop", tool: "create_shipment", verdict: "failed", step: "table" } },
      { label: "shop / create_shipment: failed at table", href: "/tools" },
    ],
    [
      "access.denied",
      { ...none, evidence: { method: "POST", path: "/api/v1/tokens" } },
      { label: "POST /api/v1/tokens", href: null },
    ],
  ])("%s", (action, parts, expected) => {
    expect(auditSubject(action, parts)).toEqual(expected);
  });

  it("says nothing rather than something wrong: missing or mistyped fields, unknown actions", () => {
    expect(auditSubject("tool.verify", { ...none, after: { server: "demo-shop" } })).toBeNull();
    expect(auditSubject("tool.verify", { ...none, after: { server: 1, tool: ["x"] } })).toBeNull();
    expect(auditSubject("token.create", { ...none, after: "token" })).toBeNull();
    expect(auditSubject("retention.trim", { ...none, evidence: { deleted: "many", cutoff: "x" } })).toBeNull();
    expect(auditSubject("session.start", { ...none, evidence: { session: "abc" } })).toBeNull();
    expect(auditSubject("something.new", { ...none, after: { server: "a", tool: "b" } })).toBeNull();
  });

  it("keeps a label short: a very long path is cut with an ellipsis", () => {
    const about = auditSubject("access.denied", { ...none, evidence: { method: "GET", path: `/${"a".repeat(400)}` } });
    expect(about?.label).toHaveLength(120);
    expect(about?.label.endsWith("…")).toBe(true);
  });
});
