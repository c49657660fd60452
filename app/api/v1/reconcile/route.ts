import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { reconcileContract } from "@/lib/api/contracts/operations";
import { getConfig } from "@/lib/config/load";
import { checkTenantFilter } from "@/lib/records/tenant-filter";
import { BULK_PLAN_MAX_ROWS } from "@/lib/resolve/bulk-plan";
import { reconcileKeys } from "@/lib/resolve/reconcile-keys";
import { reconcile } from "@/lib/resolve/reconcile";

/**
 * The console serves pages from a small connection pool, and each reconciler worker holds a
 * connection (and a row lock) for the length of a processor call: two workers leave room for
 * everyone else. The CLI (`idem reconcile`) is the tool for big sweeps.
 */
const API_RECONCILE_CONCURRENCY = 2;

export const POST = contractRoute(reconcileContract, async ({ db, actor, body, reply }) => {
  const { filter, dryRun } = body;
  if (filter.keys) return reply(await reconcileKeys(db, getConfig(), actor, filter.keys, dryRun));
  const tenant = await checkTenantFilter(db, actor, filter.tenant ?? null);
  if (!tenant.ok) return tenant;
  const result = await reconcile(db, getConfig(), {
    olderThanMs: filter.olderThan ?? null,
    tool: filter.tool ?? null,
    tenant: filter.tenant ?? null,
    limit: filter.limit ?? BULK_PLAN_MAX_ROWS,
    concurrency: API_RECONCILE_CONCURRENCY,
    dryRun,
    actor,
  });
  return reply(result);
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(reconcileContract.method);
