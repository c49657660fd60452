import { describe, expect, it } from "vitest";
import { Prisma } from "@/generated/prisma/client";
import type { Actor } from "@/lib/identity/actor";
import { actorTenantScope, tenantScopeOf } from "@/lib/tenancy/tenant-scope";

const actor = (tenants: string[]): Actor => ({
  kind: "user",
  id: "u",
  name: "u@x",
  displayName: "U",
  role: "viewer",
  tenants,
});

describe("the one tenant scope", () => {
  it("limits a tenant-limited actor in every form: Prisma where, condition list, AND, WHERE", () => {
    const scope = actorTenantScope(actor(["acme", "globex"]));
    expect(scope.tenants).toEqual(["acme", "globex"]);
    expect(scope.where).toEqual({ tenant: { in: ["acme", "globex"] } });
    const [condition, ...more] = scope.conditions();
    expect(more).toEqual([]);
    expect(condition?.sql).toBe("tenant = ANY(?::text[])");
    expect(condition?.values).toEqual([["acme", "globex"]]);
    expect(scope.and().sql).toBe("AND tenant = ANY(?::text[])");
    expect(scope.whereClause().sql).toBe("WHERE tenant = ANY(?::text[])");
    expect(scope.and().values).toEqual([["acme", "globex"]]);
  });

  it("names the column a query uses (an alias, an expression)", () => {
    const scope = tenantScopeOf(["acme"]);
    expect(scope.and(Prisma.sql`i.tenant`).sql).toBe("AND i.tenant = ANY(?::text[])");
    expect(scope.conditions(Prisma.sql`COALESCE(tenant, before->>'tenant')`)[0]?.sql).toBe(
      "COALESCE(tenant, before->>'tenant') = ANY(?::text[])",
    );
  });

  it("reads its tenants from where a statement holds its list (andFrom), or adds nothing for every tenant", () => {
    const scope = tenantScopeOf(["acme"]);
    expect(scope.list.sql).toBe("?::text[]");
    expect(scope.list.values).toEqual([["acme"]]);
    const from = scope.andFrom(Prisma.sql`v.tenants`);
    expect(from.sql).toBe("AND tenant = ANY(v.tenants)");
    expect(from.values).toEqual([]);
    expect(scope.andFrom(Prisma.sql`v.tenants`, Prisma.sql`i.tenant`).sql).toBe("AND i.tenant = ANY(v.tenants)");
    const everyTenant = tenantScopeOf(null);
    expect(everyTenant.list.sql).toBe("NULL::text[]");
    expect(everyTenant.andFrom(Prisma.sql`v.tenants`).sql).toBe("");
  });

  it("an unrestricted actor (no tenants) and null both mean every tenant: no condition at all", () => {
    for (const scope of [actorTenantScope(actor([])), tenantScopeOf(null), tenantScopeOf([])]) {
      expect(scope.tenants).toBeNull();
      expect(scope.where).toEqual({});
      expect(scope.conditions()).toEqual([]);
      expect(scope.and().sql).toBe("");
      expect(scope.whereClause().sql).toBe("");
    }
  });

  it("keeps its own copy: changing the actor's list later does not widen a built scope", () => {
    const tenants = ["acme"];
    const scope = tenantScopeOf(tenants);
    tenants.push("globex");
    expect(scope.where).toEqual({ tenant: { in: ["acme"] } });
    expect(scope.and().values).toEqual([["acme"]]);
  });
});
