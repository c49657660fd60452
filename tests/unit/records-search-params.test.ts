import { describe, expect, it } from "vitest";
import { parseRecordsQuery } from "@/lib/records/list-filters";
import { recordsSearchParams, RECORDS_FIELD_RULES, serializeRecordsParams } from "@/lib/records/records-search-params";

// The browser's filter bars read the URL with records-search-params.ts (no zod); the server's
// strict parser wraps the same rules in zod. Both must read every value one way.
const SAMPLES: Record<keyof typeof RECORDS_FIELD_RULES, string[]> = {
  tenant: ["acme", "x".repeat(200), "x".repeat(201), "a\u0007b", ""],
  subject: ["user:42", "tab\there"],
  tool: ["charge_card", "(unrecorded)"],
  status: ["completed", "s".repeat(101)],
  stuck: ["true", "false", "yes", "TRUE"],
  field: ["receipt:ch_3Mq2x", "receipt: ch_1 ", "receipt", "Receipt:ch_1", "receipt:", `receipt:${"x".repeat(201)}`],
  from: ["2026-11-29", "2026-11-29T14:05Z", "2026-11-29T14:05", "2026-02-30", `2026-11-29T14:05:00.123456789+01:00`],
  to: ["2026-11-30T00:00:00Z", "soon", "2026-11-29T14:05:00.1234567890123456789012345678901234Z"],
  limit: ["25", "50", "200", "51", "025"],
};

describe("records URL state: the client's parsers and the server's strict parser", () => {
  for (const [field, values] of Object.entries(SAMPLES)) {
    it(`agree on ${field}`, () => {
      for (const value of values) {
        const server = parseRecordsQuery({ [field]: value }, { unknownParams: "reject", searchLabels: ["receipt"] });
        const client = recordsSearchParams[field as keyof typeof SAMPLES].parse(value);
        if (value === "") {
          expect(server.ok, value).toBe(true);
          expect(client, value).toBeNull();
        } else if (server.ok) {
          expect(client, `${field}=${value}`).toEqual(server.value[field as keyof typeof SAMPLES]);
        } else {
          expect(client, `${field}=${value}`).toBeNull();
          const rule = RECORDS_FIELD_RULES[field as keyof typeof SAMPLES](value);
          expect(rule.ok).toBe(false);
          expect(server.problems).toEqual([{ param: field, message: `${field}: ${rule.ok ? "" : rule.message}` }]);
        }
      }
    });
  }

  it("names the problem in the server's words", () => {
    const parsed = parseRecordsQuery(
      { stuck: "yes", limit: "51", from: "2026-11-29T14:05" },
      { unknownParams: "reject" },
    );
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? [] : parsed.problems.map((p) => p.message)).toEqual([
      'stuck: expected true or false, got "yes"',
      'limit: expected one of 25, 50, 100, 200, got "51"',
      expect.stringMatching(/^from: expected .*, got "2026-11-29T14:05"$/),
    ]);
  });

  it("serializes what it parses", () => {
    expect(
      serializeRecordsParams("/records", {
        tenant: "acme",
        stuck: true,
        from: new Date("2026-11-29T14:05:00Z"),
        limit: 25,
      }),
    ).toBe("/records?tenant=acme&stuck=true&from=2026-11-29T14:05:00Z&limit=25");
  });
});
