import { z } from "zod";
import { apiRoute } from "@/lib/api/api-route";
import { readJsonBody } from "@/lib/api/json-body";
import { unknownTenantError } from "@/lib/api/unknown-tenant";
import { parseDuration } from "@/lib/config/duration";
import { getConfig } from "@/lib/config/load";
import { getDb } from "@/lib/db/client";
import { checkTenantFilter } from "@/lib/records/tenant-filter";
import { BULK_PLAN_MAX_ROWS, claimKeyField, reconcileKeys } from "@/lib/resolve/bulk-plan";
import { reconcile } from "@/lib/resolve/reconcile";

/**
 * The console serves pages from a small connection pool, and each reconciler worker holds a
 * connection (and a row lock) for the length of a processor call: two workers leave room for
 * everyone else. The CLI (`idem reconcile`) is the tool for big sweeps.
 */
const API_RECONCILE_CONCURRENCY = 2;

const name = z.string().trim().min(1).max(200).regex(/^[^\s\u0000-\u001f\u007f]+$/, "expected a name without spaces");
const reconcileBodySchema = z.strictObject({
  filter: z
    .strictObject({
      tool: name.optional(),
      tenant: name.optional(),
      olderThan: z
        .string()
        .refine((text) => (parseDuration(text) ?? 0) > 0, "expected a positive duration like 90s, 15m or 48h")
        .transform((text) => parseDuration(text) as number)
        .optional(),
      keys: z.array(claimKeyField).min(1).max(BULK_PLAN_MAX_ROWS).optional(),
      limit: z.number().int().min(1).max(BULK_PLAN_MAX_ROWS).optional(),
    })
    .refine((f) => f.keys === undefined || (f.tool === undefined && f.tenant === undefined && f.olderThan === undefined), {
      message: "keys names the claims exactly: give it alone, without tool, tenant or olderThan",
    })
    .default({}),
  dryRun: z.boolean(),
});

/**
 * POST /api/v1/reconcile {filter: {tool?, tenant?, olderThan?, limit?} | {keys}, dryRun} → the
 * reconciler's result: per row the processor's outcome and what was (or, dry, would be) done.
 * Without keys it is the reconciler's sweep (oldest first, rows locked while asked, ≤ 500 per
 * request); with keys, exactly those claims, each resolved only if stuck.
 */
export const POST = apiRoute("reconcile:run", async ({ request, actor }) => {
  const body = await readJsonBody(request, reconcileBodySchema);
  if (!body.ok) return body.response;
  const { filter, dryRun } = body.value;
  if (filter.keys) return Response.json(await reconcileKeys(getDb(), getConfig(), actor, filter.keys, dryRun));
  const tenant = await checkTenantFilter(getDb(), actor, filter.tenant ?? null);
  if (!tenant.ok) return unknownTenantError(tenant);
  const result = await reconcile(getDb(), getConfig(), {
    olderThanMs: filter.olderThan ?? null,
    tool: filter.tool ?? null,
    tenant: filter.tenant ?? null,
    limit: filter.limit ?? BULK_PLAN_MAX_ROWS,
    concurrency: API_RECONCILE_CONCURRENCY,
    dryRun,
    actor,
  });
  return Response.json(result);
});
