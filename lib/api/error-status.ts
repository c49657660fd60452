import type { ErrorCode } from "@/lib/errors/error-codes";

/** The one place an error code becomes an HTTP status. */
export const ERROR_STATUS = {
  unauthenticated: 401,
  forbidden: 403,
  cross_origin: 403,
  bad_request: 400,
  bad_json: 400,
  bad_text: 400,
  too_large: 413,
  bad_key: 400,
  bad_path: 400,
  ref_not_key: 400,
  bad_format: 400,
  bad_window: 400,
  bad_server: 400,
  bad_listing: 400,
  text_too_long: 400,
  no_ref: 400,
  method_not_allowed: 405,
  not_found: 404,
  unknown_tenant: 404,
  conflict: 409,
  not_completed: 409,
  outcome_unknown: 409,
  outcome_mismatch: 422,
  name_taken: 409,
  outbound_refused: 422,
  not_verifiable: 422,
  unknown_tool: 422,
  record_locked: 409,
  unavailable: 503,
  database_unavailable: 503,
  database_timeout: 503,
  internal: 500,
} as const satisfies Record<ErrorCode, number>;

/** The codes answered with a Retry-After header (lib/api/database-fault-answer.ts): the moment failed, not the request. */
export const RETRY_AFTER_CODES = [
  "database_unavailable",
  "database_timeout",
  "record_locked",
] as const satisfies readonly ErrorCode[];

export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];
