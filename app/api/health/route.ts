import { checkDatabaseHealth } from "@/lib/health/database-health";
import { RETRY_AFTER_SECONDS } from "@/lib/pages/database-unavailable-page";

/** Liveness for load balancers: no data, no auth. 503 with Retry-After when the database does not answer. */
export async function GET() {
  const health = await checkDatabaseHealth();
  if (health.ok) return Response.json(health);
  return Response.json(health, { status: 503, headers: { "Retry-After": String(RETRY_AFTER_SECONDS) } });
}
