import { jsonError } from "@/lib/api/json-error";
import type { DatabaseFault } from "@/lib/db/describe-error";
import { RETRY_AFTER_SECONDS } from "@/lib/db/unavailable-page";

const ANSWERS: Record<DatabaseFault, { status: number; code: string; message: string; retryAfter: number }> = {
  unavailable: { status: 503, code: "database_unavailable", message: "The console cannot reach its database right now. Nothing was changed; try again shortly.", retryAfter: RETRY_AFTER_SECONDS },
  timeout: { status: 503, code: "database_timeout", message: "The database did not answer within the console's statement timeout. Nothing was changed; try again shortly.", retryAfter: RETRY_AFTER_SECONDS },
  // A row lock held by a writer: the request is fine, the moment is not — a conflict worth retrying soon.
  locked: { status: 409, code: "record_locked", message: "Another writer holds this record right now (lock timeout). Nothing was changed; try again in a moment.", retryAfter: 1 },
};

/** The JSON answer for a query the database could not serve: never a 500, always with Retry-After. */
export function databaseFaultAnswer(fault: DatabaseFault): Response {
  const answer = ANSWERS[fault];
  const response = jsonError(answer.status, answer.code, answer.message);
  response.headers.set("Retry-After", String(answer.retryAfter));
  return response;
}
