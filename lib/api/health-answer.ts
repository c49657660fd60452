import type { DatabaseHealth } from "@/lib/health/database-health";
import { jsonError } from "@/lib/api/json-error";
import { jsonAnswer } from "@/lib/api/json-answer";
import { ERROR_STATUS } from "@/lib/api/error-status";
import { RETRY_AFTER_SECONDS } from "@/lib/pages/database-unavailable-page";

/**
 * /api/health's answer: 200 with the figures when healthy; otherwise the API's one error shape
 * ({error: {code, message, ...}}) as a 503 with Retry-After, the reason kept beside the message.
 */
export function healthAnswer(health: DatabaseHealth): Response {
  if (health.ok) return jsonAnswer(health, 200);
  const what =
    health.database !== "reachable"
      ? `its database: ${health.database}`
      : `its read replica: ${health.replica?.state === "unreachable" ? health.replica.reason : "no answer"}`;
  const message = `The console cannot reach ${what}. Try again shortly.`;
  const response = jsonError(ERROR_STATUS.database_unavailable, "database_unavailable", message, {
    database: health.database,
    ...(health.replica ? { replica: health.replica } : {}),
  });
  response.headers.set("Retry-After", String(RETRY_AFTER_SECONDS));
  return response;
}
