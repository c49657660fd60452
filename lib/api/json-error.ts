import type { DomainFailure, ErrorCode } from "@/lib/errors/error-codes";
import { ERROR_STATUS } from "@/lib/api/error-status";
import { jsonAnswer } from "@/lib/api/json-answer";

/** Every API error has this shape: {error: {code, message, ...details}}, its status from the code (lib/api/error-status.ts). */
export function jsonError(status: number, code: ErrorCode, message: string, extra?: Record<string, unknown>): Response {
  return jsonAnswer({ error: { code, message, ...extra } }, status);
}

/** A refusal as the API answers it: the status the code maps to, the details beside code and message. */
export function errorResponse(failure: Omit<DomainFailure, "ok">): Response {
  return jsonError(ERROR_STATUS[failure.code], failure.code, failure.message, failure.details);
}
