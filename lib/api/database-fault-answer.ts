import { ERROR_STATUS, RETRY_AFTER_CODES } from "@/lib/api/error-status";
import { jsonError } from "@/lib/api/json-error";
import type { DatabaseFault } from "@/lib/db/describe-error";
import { RETRY_AFTER_SECONDS } from "@/lib/pages/database-unavailable-page";

// Each code is one the OpenAPI document declares Retry-After for (RETRY_AFTER_CODES).
const ANSWERS: Record<
  DatabaseFault,
  { code: (typeof RETRY_AFTER_CODES)[number]; message: string; retryAfter: number }
> = {
  unavailable: {
    code: "database_unavailable",
    message: "The console cannot reach its database right now. Nothing was changed; try again shortly.",
    retryAfter: RETRY_AFTER_SECONDS,
  },
  timeout: {
    code: "database_timeout",
    message:
      "The database did not answer within the console's statement timeout. Nothing was changed; try again shortly.",
    retryAfter: RETRY_AFTER_SECONDS,
  },
  // A row lock held by a writer: the request is fine, the moment is not — a conflict worth retrying soon.
  locked: {
    code: "record_locked",
    message: "Another writer holds this record right now (lock timeout). Nothing was changed; try again in a moment.",
    retryAfter: 1,
  },
};

/** The JSON answer for a query the database could not serve: never a 500, always with Retry-After. */
export function databaseFaultAnswer(fault: DatabaseFault): Response {
  const answer = ANSWERS[fault];
  const response = jsonError(ERROR_STATUS[answer.code], answer.code, answer.message);
  response.headers.set("Retry-After", String(answer.retryAfter));
  return response;
}
