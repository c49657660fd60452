import { isIP } from "node:net";
import { InvalidArgumentError } from "commander";
import type { z } from "zod";
import { isRole, type Role } from "@/lib/identity/roles";
import { durationSchema, parseDuration } from "@/lib/config/duration";
import { serverNameSchema, tenantIdSchema, typedNameWithoutSpacesSchema } from "@/lib/field-rules/names";
import { parseWholeNumber } from "@/lib/field-rules/whole-number";
import { expectedInstant, parseInstant } from "@/lib/format/instant";

export function parseRoleOption(value: string): Role {
  if (!isRole(value)) throw new InvalidArgumentError("expected viewer, operator or admin.");
  return value;
}

/** A flag's value through a shared field rule (lib/field-rules), refused with the rule's own message. */
function parseWith<T>(schema: z.ZodType<T, string>, value: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError(`${parsed.error.issues[0]?.message ?? "invalid"}.`);
  return parsed.data;
}

export function parseTenantOption(value: string, previous: string[]): string[] {
  return [...previous, parseWith(tenantIdSchema, value)];
}

export function parsePortOption(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new InvalidArgumentError("expected a port from 1 to 65535.");
  return port;
}

const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** An address to bind: an IP address or a host name; anything else would only fail after a build. */
export function parseHostOption(value: string): string {
  const host = value.trim();
  // All-digit labels are a mistyped IP address, not a name (RFC 1123: a top-level label is never numeric).
  if (isIP(host) === 0 && (!HOSTNAME.test(host) || /^[\d.]+$/.test(host)))
    throw new InvalidArgumentError("expected an IP address (0.0.0.0, 127.0.0.1, ::) or a host name.");
  return host;
}

/** `--older-than 15m`: a positive duration (90s, 15m, 48h, 2d). */
export function parseDurationOption(value: string): number {
  return parseWith(durationSchema, value);
}

/** A whole number from `min` to `max`, for --limit, --concurrency, --batch, --rows, --iterations. */
export function wholeNumberOption(min: number, max: number) {
  return (value: string): number => {
    const parsed = parseWholeNumber(value, min, max);
    if (!parsed.ok) throw new InvalidArgumentError(parsed.message);
    return parsed.value;
  };
}

/** One tenant or tool name: printable, no spaces. */
export function parseNameOption(value: string): string {
  return parseWith(typedNameWithoutSpacesSchema, value);
}

/** An MCP server's name, as idem.config.json and the Tools page take it. */
export function parseServerNameOption(value: string): string {
  return parseWith(serverNameSchema, value.trim());
}

/**
 * `--recount-from 40h` or `--recount-from 2026-12-01T10:00Z`: an instant, given as how long ago
 * (a positive duration) or as the console's one instant rule allows (lib/format/instant.ts: a
 * date, or a date-time with its zone; never a zone guessed).
 */
export function parseInstantOption(value: string, now: () => Date = () => new Date()): Date {
  const text = value.trim();
  const ago = parseDuration(text);
  if (ago !== null && ago > 0) return new Date(now().getTime() - ago);
  const at = parseInstant(text);
  if (!at) throw new InvalidArgumentError(`expected how long ago (90m, 40h, 2d) or ${expectedInstant()}.`);
  return at;
}
