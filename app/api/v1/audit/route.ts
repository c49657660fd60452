import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { auditListContract } from "@/lib/api/contracts/operations";
import { listAudit } from "@/lib/audit/list-audit";
import { getConfig } from "@/lib/config/load";
import { checkTenantFilter } from "@/lib/records/tenant-filter";
import { redactionOf } from "@/lib/privacy/redact";

export const GET = contractRoute(auditListContract, async ({ readDb, actor, query, reply }) => {
  const tenant = await checkTenantFilter(readDb, actor, query.tenant);
  if (!tenant.ok) return tenant;
  return reply(await listAudit(readDb, actor, query, { redact: redactionOf(getConfig()) }));
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(auditListContract.method);
