import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { durationSchema } from "@/lib/config/duration";
import { auditReasonSchema } from "@/lib/field-rules/audit-reason";
import {
  configuredToolNameSchema,
  nameWithoutSpacesSchema,
  recordedNameSchema,
  serverNameSchema,
  tenantIdSchema,
  typedNameWithoutSpacesSchema,
} from "@/lib/field-rules/names";
import { isReasonLongEnough } from "@/lib/field-rules/reason-length";

/** The one message a rule refuses `value` with. */
function refusal(schema: z.ZodType, value: string): string | undefined {
  const parsed = schema.safeParse(value);
  return parsed.success ? undefined : parsed.error.issues.map((issue) => issue.message).join("; ");
}

const SERVER = "expected a server name: letters, digits, _ . : - (1-100)";
const TOOL = "expected a tool name: letters, digits, _ . : - (1-100)";
const NO_SPACES = "expected a name without spaces or control characters (1-200)";
const TENANT = "expected a tenant id without spaces or commas";
const REASON = "say why, in a few words (at least 3 characters)";

describe("shared field rules (lib/field-rules)", () => {
  it.each([
    ["server name", serverNameSchema, ["shop", "shop.staging:8080", "a_b-c", "x".repeat(100)], SERVER],
    ["configured tool name", configuredToolNameSchema, ["charge_card", "ns:tool.v2", "x".repeat(100)], TOOL],
  ] as const)("%s: letters, digits, _ . : -", (_, schema, accepted, message) => {
    for (const value of accepted) expect(schema.parse(value)).toBe(value);
    for (const value of ["", "x".repeat(101), "../../x", "a b", "a/b", "shop\r\n", "café"])
      expect(refusal(schema, value)).toBe(message);
  });

  it("a name without spaces: any printable text up to 200, as given", () => {
    for (const value of ["charge_card", "tenant/acme", "café", "x".repeat(200)])
      expect(nameWithoutSpacesSchema.parse(value)).toBe(value);
    for (const value of ["", " a", "a b", "a\tb", "a\u0000", "a\u007f", "x".repeat(201)])
      expect(refusal(nameWithoutSpacesSchema, value)).toBe(NO_SPACES);
  });

  it("a typed name without spaces: surrounding spaces dropped, then the same rule", () => {
    expect(typedNameWithoutSpacesSchema.parse("  acme  ")).toBe("acme");
    for (const value of ["   ", "a b", "x\r\nSet-Cookie: y", "x".repeat(201)])
      expect(refusal(typedNameWithoutSpacesSchema, value)).toBe(NO_SPACES);
  });

  it("a tenant id: no spaces, no commas", () => {
    expect(tenantIdSchema.parse(" acme ")).toBe("acme");
    for (const value of ["a,b", "a b", "", "x".repeat(201)]) expect(refusal(tenantIdSchema, value)).toBe(TENANT);
  });

  it("a recorded name: spaces allowed, control characters not", () => {
    expect(recordedNameSchema.parse(" acme corp ")).toBe("acme corp");
    expect(refusal(recordedNameSchema, "a\u0001b")).toBe("control characters are not allowed");
    expect(refusal(recordedNameSchema, "x".repeat(201))).toBeDefined();
    expect(refusal(recordedNameSchema, "  ")).toBeDefined();
  });

  it("an audit reason: 3 to 1,000 characters after trimming", () => {
    expect(auditReasonSchema.parse("  ok!  ")).toBe("ok!");
    expect(auditReasonSchema.parse("x".repeat(1000))).toHaveLength(1000);
    for (const value of ["", "  ab  "]) expect(refusal(auditReasonSchema, value)).toBe(REASON);
    expect(refusal(auditReasonSchema, "x".repeat(1001))).toBe("at most 1000 characters");
    // The forms' check (no zod on the client) agrees with the server's rule on the short side.
    for (const value of ["ab", " ab ", "abc", " abc "])
      expect(isReasonLongEnough(value)).toBe(auditReasonSchema.safeParse(value).success);
  });

  it("a duration: positive, with a unit", () => {
    expect(durationSchema.parse("90s")).toBe(90_000);
    expect(durationSchema.parse(" 48h ")).toBe(172_800_000);
    expect(durationSchema.parse("1.5m")).toBe(90_000);
    for (const value of ["0s", "5 minutes", "15", "-1m", ""])
      expect(refusal(durationSchema, value)).toBe(
        `expected a positive duration like "90s", "5m" or "48h" (got ${JSON.stringify(value)})`,
      );
  });
});
