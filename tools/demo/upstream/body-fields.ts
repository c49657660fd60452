import { HttpError } from "./json-http";

// Field readers for request bodies: each names the bad field so a caller can fix its request.

export function requiredString(body: Record<string, unknown>, field: string, maxLength = 200): string {
  const value = body[field];
  if (typeof value !== "string" || value.trim() === "" || value.length > maxLength) {
    throw new HttpError(
      400,
      "invalid_request",
      `${field}: expected a non-empty string of at most ${maxLength} characters`,
    );
  }
  return value;
}

/** Absent and null both mean "no value": JSON encoders differ on which one they write. */
export function optionalString(body: Record<string, unknown>, field: string, maxLength = 200): string | undefined {
  if (body[field] === undefined || body[field] === null) return undefined;
  return requiredString(body, field, maxLength);
}

export function positiveCents(body: Record<string, unknown>, field: string): number {
  const value = body[field];
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0 || value > 100_000_000) {
    throw new HttpError(400, "invalid_request", `${field}: expected a whole number of cents between 1 and 100000000`);
  }
  return value;
}
