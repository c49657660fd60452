import { jsonError } from "@/lib/api/json-error";
import type { UnknownTenant } from "@/lib/records/tenant-filter";

/**
 * A tenant filter the caller cannot be answered about: 404 `unknown_tenant`, the same for a
 * tenant outside their scope and one that does not exist (absent, never forbidden: existence is
 * data too). The body is exactly {error: {code, message}}, so the two are byte-identical but for the name.
 */
export function unknownTenantError(problem: UnknownTenant): Response {
  return jsonError(404, problem.code, problem.message);
}
