import { REDACTED } from "@/lib/privacy/redact";

/**
 * What a stored response says in fields support can quote, read from the response as the reader
 * sees it (already masked): a masked value is never read back, so nothing here confirms it.
 */
export type ResponseFacts = {
  /** The processor refused it: its status word or error names a refusal. */
  refused: { code: string | null; message: string | null } | null;
  amount: { cents: number; currency: string | null; text: string; path: string } | null;
  ids: { label: string; value: string; path: string }[];
  /** The response's own time (the processor's created_at, or a send time), with the field it came from. */
  ownTime: { at: string; field: string } | null;
};

/**
 * The amount as the stored response holds it, in the unit its field names (amount_cents: cents),
 * whatever the outcome: the record's summary shows it; a masked one is said to be masked, never read.
 */
export type StoredAmount =
  | { state: "recorded"; cents: number; currency: string | null; text: string; path: string }
  | { state: "masked"; path: string }
  /** Present but not a whole number of cents: the response panel shows it as stored. */
  | { state: "unreadable"; path: string }
  | { state: "not_recorded" };

const AMOUNT_PATH = "$.amount_cents";

const REFUSED_WORDS = new Set(["failed", "declined", "canceled", "cancelled", "rejected", "error", "refused"]);
const TIME_FIELDS = ["created_at", "createdAt", "created", "sent_at", "sentAt"] as const;

function objectOf(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function quotable(value: unknown): string | null {
  if (typeof value !== "string" && typeof value !== "number") return null;
  const text = String(value).trim();
  return text === "" || text.includes(REDACTED) || text.length > 120 ? null : text;
}

/** `$.a.b` only: the simple paths a tool's `search` labels name (anything else is not read here). */
function atSimplePath(root: unknown, path: string): unknown {
  if (!/^\$(\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(path)) return undefined;
  let node: unknown = root;
  for (const part of path.slice(2).split(".")) node = objectOf(node)?.[part];
  return node;
}

function timeOf(value: unknown): string | null {
  // Unix seconds (Stripe's `created`) or an ISO text; anything else is not taken for a time.
  if (typeof value === "number" && Number.isInteger(value) && value > 1e9 && value < 1e11)
    return new Date(value * 1000).toISOString();
  if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}T/.test(value)) return null;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? null : at.toISOString();
}

/** "24,000 cents", "24,000 cents USD": the number with the unit its field names and the currency stored beside it. */
function centsText(cents: number, currency: string | null): string {
  return `${cents.toLocaleString("en-US")} cents${currency ? ` ${currency}` : ""}`;
}

export function storedAmount(response: unknown): StoredAmount {
  const body = objectOf(response);
  if (!body || body.amount_cents === undefined || body.amount_cents === null) return { state: "not_recorded" };
  const cents = body.amount_cents;
  if (typeof cents === "string" && cents.includes(REDACTED)) return { state: "masked", path: AMOUNT_PATH };
  if (typeof cents !== "number" || !Number.isSafeInteger(cents)) return { state: "unreadable", path: AMOUNT_PATH };
  const stated = quotable(body.currency);
  const currency = stated && /^[a-z]{3}$/i.test(stated) ? stated.toUpperCase() : null;
  return { state: "recorded", cents, currency, text: centsText(cents, currency), path: AMOUNT_PATH };
}

export function responseFacts(
  response: unknown,
  options: { idLabel: string; searchLabels?: Record<string, string> },
): ResponseFacts {
  const body = objectOf(response);
  if (!body) return { refused: null, amount: null, ids: [], ownTime: null };
  const status = typeof body.status === "string" ? body.status.toLowerCase() : null;
  const error = body.error;
  const errorBody = objectOf(error);
  const refused =
    (status !== null && REFUSED_WORDS.has(status)) || (error !== undefined && error !== null && status === null)
      ? {
          code: quotable(errorBody?.code ?? (typeof error === "string" ? error : body.code)),
          message: quotable(errorBody?.message ?? body.message),
        }
      : null;

  const stored = storedAmount(body);
  const amount =
    stored.state === "recorded"
      ? { cents: stored.cents, currency: stored.currency, text: stored.text, path: stored.path }
      : null;

  const ids: ResponseFacts["ids"] = [];
  const seen = new Set<string>();
  const add = (label: string, value: unknown, path: string) => {
    const text = quotable(value);
    if (text !== null && !seen.has(text)) {
      seen.add(text);
      ids.push({ label, value: text, path });
    }
  };
  // The configuration's labels first: they are the names support searches by.
  for (const [label, path] of Object.entries(options.searchLabels ?? {})) add(label, atSimplePath(body, path), path);
  if (!refused) add(options.idLabel, body.id, "$.id");
  add("tracking", body.tracking_number, "$.tracking_number");

  let ownTime: ResponseFacts["ownTime"] = null;
  for (const field of TIME_FIELDS) {
    const at = timeOf(body[field]);
    if (at) {
      ownTime = { at, field };
      break;
    }
  }
  return { refused, amount: refused ? null : amount, ids, ownTime };
}
