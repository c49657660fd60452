import { checkDatabaseHealth } from "@/lib/health/database-health";

/** Liveness for load balancers: no data, no auth. 503 when the database does not answer. */
export async function GET() {
  const health = await checkDatabaseHealth();
  return Response.json(health, { status: health.ok ? 200 : 503 });
}
