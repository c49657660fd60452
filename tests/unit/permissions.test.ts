import { describe, expect, it } from "vitest";
import { can, PERMISSIONS, type Action } from "@/lib/auth/permissions";
import { ROLES } from "@/lib/identity/roles";
import { safeCallbackUrl } from "@/lib/auth/sign-in-messages";

describe("the permission table", () => {
  it("gives each role at least what the role below it has", () => {
    for (const action of Object.keys(PERMISSIONS) as Action[]) {
      if (can("viewer", action)) expect(can("operator", action)).toBe(true);
      if (can("operator", action)) expect(can("admin", action)).toBe(true);
    }
  });

  it("matches docs/architecture.md#roles-and-permissions", () => {
    expect(can("viewer", "records:read")).toBe(true);
    expect(can("viewer", "records:check-processor")).toBe(true);
    expect(can("viewer", "records:resolve")).toBe(false);
    expect(can("operator", "records:resolve")).toBe(true);
    expect(can("operator", "records:release")).toBe(true);
    expect(can("operator", "reconcile:run")).toBe(true);
    expect(can("operator", "records:force-release")).toBe(false);
    expect(can("operator", "tokens:manage")).toBe(false);
    expect(can("admin", "tokens:manage")).toBe(true);
    expect(can("admin", "users:manage")).toBe(true);
    expect(can("admin", "annotations:review")).toBe(true);
    expect(ROLES).toEqual(["viewer", "operator", "admin"]);
  });
});

describe("callbackUrl after sign-in", () => {
  it.each([
    ["/records?tenant=acme", "/records?tenant=acme"],
    ["https://evil.example/", "/"],
    ["//evil.example/", "/"],
    ["/\\evil.example", "/"],
    [undefined, "/"],
    [["/a", "/b"], "/"],
  ])("%s → %s", (input, expected) => {
    expect(safeCallbackUrl(input as string | string[] | undefined)).toBe(expected);
  });
});
