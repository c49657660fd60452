import { z } from "zod";

/**
 * Every error code the console answers, API and domain alike: one closed set, so a client can
 * switch on `error.code` and a new code is a deliberate change here. lib/api/error-status.ts
 * maps each to its HTTP status; domain code names the code, never the status.
 */
export const ERROR_CODES = [
  // Who is asking (lib/api/api-route.ts).
  "unauthenticated",
  "forbidden",
  "cross_origin",
  // What was sent: the query, the path, the body.
  "bad_request",
  "bad_json",
  "bad_text",
  "too_large",
  "bad_key",
  // A path with a malformed percent escape or bytes that are not UTF-8 (proxy.ts answers it).
  "bad_path",
  "ref_not_key",
  "bad_format",
  "bad_window",
  "bad_server",
  "bad_listing",
  "text_too_long",
  "no_ref",
  // A method the route file does not serve (lib/api/method-not-allowed.ts).
  "method_not_allowed",
  // What the domain found.
  "not_found",
  "unknown_tenant",
  "conflict",
  // allow-repeat (issue #28): only a completed record's deduplication can be ended.
  "not_completed",
  "outcome_unknown",
  "outcome_mismatch",
  "name_taken",
  "outbound_refused",
  // verify-tool (issue #18): a server the file does not mark "verify": true; a tool the server does not list.
  "not_verifiable",
  "unknown_tool",
  // Another writer holds the row longer than the lock limit (lib/db/timeouts.ts): try again.
  "record_locked",
  // The console itself.
  "unavailable",
  "database_unavailable",
  // A statement ran past its limit (lib/db/timeouts.ts).
  "database_timeout",
  "internal",
] as const;

export const errorCodeSchema = z.enum(ERROR_CODES);
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * A domain function's refusal: a code from the closed set, a message for people, and the details
 * a caller needs to act (the current row of a conflict, the processor's answer). Never a status.
 */
export type DomainFailure<
  C extends ErrorCode = ErrorCode,
  D extends Record<string, unknown> = Record<string, unknown>,
> = {
  ok: false;
  code: C;
  message: string;
  details?: D;
};

export function isDomainFailure(value: unknown): value is DomainFailure {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as { ok?: unknown }).ok === false &&
    typeof (value as { code?: unknown }).code === "string"
  );
}
