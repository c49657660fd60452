import "server-only";
import { z } from "zod";
import type { Actor } from "@/lib/identity/actor";
import { DURATION, parseDuration } from "@/lib/config/duration";
import { expectedInstant, parseInstant } from "@/lib/format/instant";
import type { Db } from "@/lib/db/prisma";
import {
  canonicalPythonJson,
  CanonicalJsonError,
  DEFAULT_WINDOW_SECONDS,
  deriveKey,
  KEY_SCHEMES,
  KeyInputError,
  type DerivedKey,
  type KeyInput,
  type KeyScheme,
} from "idem-guard";
import { diffCanonical, type CanonicalDiff } from "@/lib/records/canonical-diff";
import { MAX_LOOKUP_TEXT_CHARS } from "@/lib/records/extract-refs";
import { RECORD_SUMMARY_SELECT, toRecordSummary, type RecordSummary } from "@/lib/records/lookup";
import { checkTenantFilter } from "@/lib/records/tenant-filter";
import { actorTenantScope } from "@/lib/tenancy/tenant-scope";

export const MAX_WINDOW_SECONDS = 366 * 24 * 3600;

export type ExplainInput = {
  tenant: string;
  /** null hashes as Python's "None", as a writer without a subject does. */
  subject: string | null;
  tool: string;
  args: string;
  at: Date;
  windowSeconds: number;
  scheme: KeyScheme;
  /** A second argument text to compare with the first. */
  compare: string | null;
};

export type FieldError = { field: string; message: string };
export type ParsedExplainInput = { ok: true; input: ExplainInput } | { ok: false; errors: FieldError[] };

const text = (field: string, max: number) =>
  z
    .string()
    .trim()
    .min(1, `${field}: required`)
    .max(max, `${field}: at most ${max.toLocaleString("en")} characters`);
const optionalText = (field: string, max: number) =>
  z
    .string()
    .max(max, `${field}: at most ${max.toLocaleString("en")} characters`)
    .optional()
    .transform((value) => (value === undefined || value.trim() === "" ? null : value));

/** The explainer's parameters: parseExplainParams reads with them, the OpenAPI document shows them. */
export const EXPLAIN_QUERY_FIELDS = {
  tenant: text("tenant", 200),
  subject: optionalText("subject", 200).transform((value) => value?.trim() ?? null),
  tool: text("tool", 100),
  args: text("args", MAX_LOOKUP_TEXT_CHARS),
  at: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === "") return null;
      const at = parseAt(value);
      if (!at) {
        ctx.addIssue({
          code: "custom",
          message: `at: expected ${expectedInstant({ unixSeconds: true })}; a time without a zone is refused`,
        });
        return z.NEVER;
      }
      return at;
    })
    .meta({
      description:
        "The call's time (default now): unix seconds, a date, or a date-time with a zone; a time without one is refused.",
    }),
  window: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === "") return DEFAULT_WINDOW_SECONDS;
      const seconds = parseWindow(value);
      if (seconds === null) {
        ctx.addIssue({
          code: "custom",
          message: `window: expected whole seconds (900) or a duration (15m, 1h), from 1 s to 366 d (got ${JSON.stringify(value.slice(0, 40))})`,
        });
        return z.NEVER;
      }
      return seconds;
    })
    .meta({
      pattern: `^\\s*(\\d+|${DURATION.source.slice(1, -1)})\\s*$`,
      description: `The writer's time bucket (default ${DEFAULT_WINDOW_SECONDS}): whole seconds (900) or a duration (15m, 1h), from 1 s to 366 d.`,
    }),
  scheme: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === "") return "python-json" as KeyScheme;
      const scheme = KEY_SCHEMES.find((s) => s === value);
      if (!scheme) {
        ctx.addIssue({ code: "custom", message: "scheme: expected python-json or jcs" });
        return z.NEVER;
      }
      return scheme;
    })
    .meta({ enum: KEY_SCHEMES, description: "How the arguments are made canonical (default python-json)." }),
  compare: optionalText("compare", MAX_LOOKUP_TEXT_CHARS),
};
const explainParamsSchema = z.object(EXPLAIN_QUERY_FIELDS);

/** The explainer's URL parameters (one string each; a repeated parameter counts once). */
export function parseExplainParams(
  params: Record<string, string | string[] | undefined>,
  now: Date,
): ParsedExplainInput {
  const first = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, Array.isArray(v) ? v[0] : v]));
  const parsed = explainParamsSchema.safeParse(first);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => ({
      field: String(issue.path[0] ?? "input"),
      message: issue.message,
    }));
    // Report bad JSON in the same answer as a bad window, not one mistake per round trip.
    for (const field of ["args", "compare"] as const) {
      const value = first[field];
      if (
        typeof value !== "string" ||
        value.trim() === "" ||
        value.length > MAX_LOOKUP_TEXT_CHARS ||
        errors.some((e) => e.field === field)
      )
        continue;
      const problem = jsonProblem(value);
      if (problem) errors.push({ field, message: `${field}: not valid JSON — ${problem}` });
    }
    return { ok: false, errors };
  }
  const { at, ...rest } = parsed.data;
  return { ok: true, input: { ...rest, windowSeconds: rest.window, at: at ?? now } };
}

function jsonProblem(text: string): string | null {
  try {
    canonicalPythonJson(text);
    return null;
  } catch (error) {
    if (error instanceof CanonicalJsonError) return error.message;
    throw error;
  }
}

/** The explained time: lib/format/instant.ts with unix seconds (a time without a zone is refused). */
export function parseAt(value: string): Date | null {
  return parseInstant(value.trim(), { unixSeconds: true });
}

function parseWindow(value: string): number | null {
  const t = value.trim();
  const seconds = /^\d+$/.test(t) ? Number(t) : (parseDuration(t) ?? NaN) / 1000;
  return Number.isSafeInteger(seconds) && seconds >= 1 && seconds <= MAX_WINDOW_SECONDS ? seconds : null;
}

export type BucketRecord = RecordSummary & { /** created_at minus the explained time. */ offsetMs: number };

export type BucketNeighbour = {
  position: "previous" | "same" | "next";
  bucket: string;
  startsAt: string;
  endsAt: string;
  key: string;
  ref: string;
  /** null: not looked up, the tenant is not one the caller can be answered about (see recordsError). */
  records: BucketRecord[] | null;
};

export type { ByteWindow, CanonicalDiff } from "@/lib/records/canonical-diff";
export { diffCanonical } from "@/lib/records/canonical-diff";

export type KeyComparison = { other: DerivedKey; diff: CanonicalDiff };

export type KeyExplanation = {
  input: { tenant: string; subject: string | null; tool: string; at: string; windowSeconds: number; scheme: KeyScheme };
  derived: DerivedKey;
  buckets: BucketNeighbour[];
  comparison: KeyComparison | null;
  /** Why the buckets' records were not looked up: the tenant is outside the caller's or unknown. */
  recordsError: { code: "unknown_tenant"; message: string } | null;
};

export type ExplainResult = { ok: true; explanation: KeyExplanation } | { ok: false; errors: FieldError[] };

/**
 * The key a writer derives for this call, the keys of the bucket before and after it (the same
 * call a few minutes apart that got a different key: the near-duplicates a window lets through),
 * the records found under each within the actor's tenants, and — given a second argument text —
 * the first canonical byte where the two differ.
 */
export async function explainKey(db: Db, actor: Actor, input: ExplainInput): Promise<ExplainResult> {
  const base: Omit<KeyInput, "argumentsJson" | "at"> = {
    tenant: input.tenant,
    subject: input.subject,
    tool: input.tool,
    windowSeconds: input.windowSeconds,
    scheme: input.scheme,
  };
  const derived = derive(() => deriveKey({ ...base, argumentsJson: input.args, at: input.at }), "args");
  if (!derived.ok) return derived;
  let comparison: KeyComparison | null = null;
  if (input.compare !== null) {
    const other = derive(() => deriveKey({ ...base, argumentsJson: input.compare ?? "", at: input.at }), "compare");
    if (!other.ok) return other;
    comparison = { other: other.value, diff: diffCanonical(derived.value.canonical, other.value.canonical) };
  }

  const windowMs = input.windowSeconds * 1000;
  const positions = [
    { position: "previous", shift: -windowMs },
    { position: "same", shift: 0 },
    { position: "next", shift: windowMs },
  ] as const;
  const neighbours = positions.map(({ position, shift }) => {
    const key = deriveKey({ ...base, argumentsJson: input.args, at: new Date(input.at.getTime() + shift) });
    const startMs = Number(key.bucket) * windowMs;
    return {
      position,
      bucket: key.bucket,
      startsAt: new Date(startMs).toISOString(),
      endsAt: new Date(startMs + windowMs).toISOString(),
      key: key.key,
      ref: key.ref,
    };
  });
  // The derivation is arithmetic anyone can do offline (`idem key`): it is always given. Which
  // records hold those keys is data: for a tenant the caller cannot be answered about, "no record"
  // in each bucket would read as a fact, so the records are withheld with the tenant message.
  const tenantCheck = await checkTenantFilter(db, actor, input.tenant);
  const rows = tenantCheck.ok
    ? await db.idempotency.findMany({
        where: { key: { in: neighbours.map((n) => n.key) }, ...actorTenantScope(actor).where },
        select: RECORD_SUMMARY_SELECT,
      })
    : null;
  const buckets = neighbours.map((n) => ({
    ...n,
    records:
      rows === null
        ? null
        : rows
            .filter((r) => r.key === n.key)
            .map((r) => ({ ...toRecordSummary(r), offsetMs: r.createdAt.getTime() - input.at.getTime() })),
  }));

  return {
    ok: true,
    explanation: {
      input: {
        tenant: input.tenant,
        subject: input.subject,
        tool: input.tool,
        at: input.at.toISOString(),
        windowSeconds: input.windowSeconds,
        scheme: input.scheme,
      },
      derived: derived.value,
      buckets,
      comparison,
      recordsError: tenantCheck.ok ? null : { code: tenantCheck.code, message: tenantCheck.message },
    },
  };
}

function derive(
  run: () => DerivedKey,
  field: string,
): { ok: true; value: DerivedKey } | { ok: false; errors: FieldError[] } {
  try {
    return { ok: true, value: run() };
  } catch (error) {
    if (error instanceof CanonicalJsonError)
      return { ok: false, errors: [{ field, message: `${field}: not valid JSON — ${error.message}` }] };
    if (error instanceof KeyInputError) {
      const [name = "input"] = error.message.split(":");
      return {
        ok: false,
        errors: [
          {
            field: name === "window" || name === "scheme" ? name : name === "at" ? "at" : field,
            message: error.message,
          },
        ],
      };
    }
    throw error;
  }
}
