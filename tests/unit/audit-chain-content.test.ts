import { describe, expect, it } from "vitest";
import {
  auditChainContent,
  auditChainHash,
  epochMicroseconds,
  type AuditChainRowText,
} from "@/lib/audit/audit-chain-content";

const row: AuditChainRowText = {
  chainSeq: "7",
  id: "12",
  at: "2026-12-04 12:36:53.123456+00",
  actor: "omar@example.test",
  actorRole: "operator",
  action: "record.release",
  key: null,
  tenant: "shop",
  before: '{"a": "é"}',
  after: null,
  reason: "",
  evidence: null,
  prevHash: "0".repeat(64),
};

describe("the audit chain's canonical content (docs/audit-chain.md#canonical-content)", () => {
  it("writes each column as <UTF-8 byte length>:<text>, NULL as -, in the fixed order", () => {
    expect(auditChainContent(row)).toBe(
      `1:72:1216:1796387813123456` +
        `17:omar@example.test8:operator14:record.release-4:shop11:{"a": "é"}-0:-64:${"0".repeat(64)}`,
    );
  });

  it("tells NULL from the empty text, and hashes with sha256", () => {
    expect(auditChainHash({ ...row, reason: null })).not.toBe(auditChainHash(row));
    expect(auditChainHash(row)).toMatch(/^[0-9a-f]{64}$/);
  });

  it("reads `at` as the instant, whatever the session's time zone wrote", () => {
    const utc = epochMicroseconds("2026-12-04 12:36:53.123456+00");
    expect(utc).toBe(1796387813123456n);
    expect(epochMicroseconds("2026-12-04 18:06:53.123456+05:30")).toBe(utc);
    expect(epochMicroseconds("2026-12-04 07:36:53.123456-05")).toBe(utc);
    expect(epochMicroseconds("2026-12-04 12:36:53+00")).toBe(1796387813000000n);
    expect(epochMicroseconds("2026-12-04 12:36:53.5+00")).toBe(1796387813500000n);
    expect(epochMicroseconds("1880-01-01 00:00:00+00:17:30")).toBe(-2840141850000000n);
    expect(() => epochMicroseconds("12/04/2026 12:36:53.123456 UTC")).toThrow(/ISO DateStyle/);
  });
});
