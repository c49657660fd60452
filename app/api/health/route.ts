import { healthAnswer } from "@/lib/api/health-answer";
import { checkDatabaseHealth } from "@/lib/health/database-health";

/** Liveness for load balancers: no data, no auth. 503 in the API's error shape, with Retry-After, when the database does not answer. */
export async function GET() {
  return healthAnswer(await checkDatabaseHealth());
}
