import { createHash } from "node:crypto";
import { canonicalJcs } from "./canonical-jcs.ts";
import { canonicalPythonJson } from "./canonical-python-json.ts";

/**
 * The reference writers' key, reproduced exactly:
 *
 *     canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"))
 *     bucket = int(time.time()) // window_s
 *     material = f"{caller.tenant}|{caller.subject}|{tool}|{canonical}|{bucket}"
 *     key = hashlib.sha256(material.encode()).hexdigest()
 *
 * A business key (an order id) replaces the bucket: `tenant|subject|tool|canonical|businessKey`.
 * With `argumentsInKey: false` the business key alone names the operation, as a payment API's
 * Idempotency-Key does: `tenant|subject|tool|businessKey`, no arguments. A second call under that
 * business key with other arguments then derives the same key, and the guard refuses it
 * (`arguments_mismatch`, from `argumentsSha256`) instead of running it as a new operation.
 */

export type KeyScheme = "python-json" | "jcs";
export const KEY_SCHEMES: readonly KeyScheme[] = ["python-json", "jcs"];
export const DEFAULT_WINDOW_SECONDS = 900;

export type KeyInput = {
  tenant: string;
  subject: string | null;
  tool: string;
  /** The arguments as JSON text: only the text says whether `1.0` was a float or how big an int was. */
  argumentsJson: string;
  /** When the call happened (an injected clock). */
  at: Date;
  /** Default 900; a positive whole number of seconds. */
  windowSeconds?: number;
  /** Default "python-json". */
  scheme?: KeyScheme;
  /** A real uniqueness rule (an order id) that replaces the time bucket. */
  businessKey?: string;
  /**
   * Default true: the canonical arguments are part of the key, so a business key reused with
   * other arguments is another key (another operation, which runs). False: the business key alone
   * names the operation (`tenant|subject|tool|businessKey`), so the same business key with other
   * arguments is the same key, and the guard refuses it as `arguments_mismatch`. Needs a
   * `businessKey`; `argumentsSha256` is still the hash of the canonical arguments.
   */
  argumentsInKey?: boolean;
};

export type DerivedKey = {
  scheme: KeyScheme;
  canonical: string;
  material: string;
  bucket: string;
  key: string;
  ref: string;
  /** sha256 hex of `canonical` alone: with tenant, subject and tool it names the operation across buckets. */
  argumentsSha256: string;
};

/** Bad key input; the message starts with the field it is about ("window: ..."). */
export class KeyInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "KeyInputError";
  }
}

export function deriveKey(input: KeyInput): DerivedKey {
  const scheme = input.scheme ?? "python-json";
  const windowSeconds = input.windowSeconds ?? DEFAULT_WINDOW_SECONDS;
  if (!Number.isSafeInteger(windowSeconds) || windowSeconds <= 0) {
    throw new KeyInputError(`window: expected a positive whole number of seconds (got ${String(windowSeconds)})`);
  }
  if (!KEY_SCHEMES.includes(scheme))
    throw new KeyInputError(`scheme: expected python-json or jcs (got ${JSON.stringify(scheme)})`);
  const atMs = input.at.getTime();
  if (Number.isNaN(atMs)) throw new KeyInputError("at: not a valid date");
  if (input.businessKey === "")
    throw new KeyInputError("businessKey: must not be empty (omit it to use the time bucket)");
  const argumentsInKey = checkArgumentsInKey(input.argumentsInKey, input.businessKey !== undefined);
  // Python's str.encode() refuses a lone surrogate; Node would silently hash U+FFFD instead.
  const texts = {
    tenant: input.tenant,
    subject: input.subject ?? "",
    tool: input.tool,
    businessKey: input.businessKey ?? "",
  };
  for (const [field, text] of Object.entries(texts)) {
    if (LONE_SURROGATE.test(text))
      throw new KeyInputError(`${field}: contains a lone surrogate, which is not encodable as UTF-8`);
  }

  const canonical = scheme === "jcs" ? canonicalJcs(input.argumentsJson) : canonicalPythonJson(input.argumentsJson);
  // int(time.time()) truncates toward zero before the floor division; that matters before 1970.
  const bucket = input.businessKey ?? String(Math.floor(Math.trunc(atMs / 1000) / windowSeconds));
  // f"{None}" is "None": a writer without a subject hashes that word.
  const material = argumentsInKey
    ? `${input.tenant}|${input.subject ?? "None"}|${input.tool}|${canonical}|${bucket}`
    : `${input.tenant}|${input.subject ?? "None"}|${input.tool}|${bucket}`;
  const key = createHash("sha256").update(material, "utf8").digest("hex");
  const argumentsSha256 = createHash("sha256").update(canonical, "utf8").digest("hex");
  return { scheme, canonical, material, bucket, key, ref: refOf(key), argumentsSha256 };
}

/**
 * The `argumentsInKey` option, checked (default true): false needs a business key, since without
 * the arguments and without one every call of the tool in a time bucket would share one key.
 * `hasBusinessKey` is whether the call (or, for a guard's config, the tool) has one.
 */
export function checkArgumentsInKey(argumentsInKey: boolean | undefined, hasBusinessKey: boolean): boolean {
  const value = argumentsInKey ?? true;
  if (typeof value !== "boolean")
    throw new KeyInputError(`argumentsInKey: expected true or false (got ${JSON.stringify(value)})`);
  if (!value && !hasBusinessKey)
    throw new KeyInputError(
      "argumentsInKey: false needs a businessKey (without arguments or a business key, every call of the tool in a time bucket would share one key)",
    );
  return value;
}

/** The short reference support staff see in error messages ("ref 3f9a1c2b7d4e"). */
export function refOf(key: string): string {
  return key.slice(0, 12);
}

/**
 * JSON text for a JS value, for callers that hold only a parsed value. Prefer the text the
 * arguments arrived as: a parsed value has already lost what Python hashes (`1.0` becomes `1`,
 * big integers are rounded), so a key derived from it can differ from the writer's.
 */
export function argumentsJsonOf(value: unknown): string {
  let text: unknown;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new KeyInputError(
      `arguments: not representable as JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (typeof text !== "string") throw new KeyInputError("arguments: not representable as JSON");
  return text;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
