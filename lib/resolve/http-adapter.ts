import type { IdemConfig } from "@/lib/config/schema";
import { elapsedSince, type ProcessorCheck, type ProcessorEvidence } from "./processor-check-types";
import { readStatusWord } from "./status-words";

export type HttpProcessor = Extract<NonNullable<IdemConfig["tools"][string]["processor"]>, { type: "http" }>;

/** Enough for any receipt; a larger answer is cut and reported, not buffered without end. */
const MAX_BODY_BYTES = 256 * 1024;

/**
 * `GET {baseUrl}/references/{key}` (docs/architecture.md#states): 200 `{status: "succeeded"|"failed"|"pending", receipt}`
 * or 404. Anything else — 5xx, a timeout, a refused connection, an answer that is not the
 * processor's JSON — is unknown: the console changes nothing on an answer it cannot read.
 */
export async function checkHttpProcessor(
  processor: HttpProcessor,
  key: string,
  timeoutMs: number,
  // A verification passes the outbound policy's fetch (lib/annotations/verify-tool/outbound-fetch.ts).
  fetchImpl: typeof fetch = fetch,
): Promise<ProcessorCheck> {
  const url = `${processor.baseUrl.replace(/\/+$/, "")}/references/${encodeURIComponent(key)}`;
  const request = { method: "GET", url, headers: Object.keys(processor.headers), timeoutMs };
  const started = performance.now();
  const checkedAt = new Date().toISOString();
  const evidence = (fields: Omit<ProcessorEvidence, "adapter" | "request" | "ms">): ProcessorEvidence => ({
    adapter: "http",
    request,
    ...fields,
    ms: elapsedSince(started),
  });

  let response: Response;
  let text: string;
  try {
    response = await fetchImpl(url, {
      headers: { accept: "application/json", ...processor.headers },
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "manual",
      cache: "no-store",
    });
    text = await readCapped(response);
  } catch (error) {
    const reason = describeFetchError(error, timeoutMs);
    return {
      outcome: "unknown",
      reason: `the processor could not be asked: ${reason}`,
      evidence: evidence({ status: null, error: reason }),
      checkedAt,
    };
  }

  const body = parseJson(text);
  const isJson = body !== NOT_JSON;
  const shown = isJson ? body : text;
  const status = response.status;

  if (status === 404) {
    // A JSON 404 is the processor saying "no such reference". An HTML 404 is a proxy or a wrong
    // baseUrl; reading it as "not taken" would invite releasing a claim the processor did take.
    if (!isJson) {
      return {
        outcome: "unknown",
        reason: "the URL answered 404 without JSON: probably not the processor's reference endpoint (check baseUrl)",
        evidence: evidence({ status, body: shown }),
        checkedAt,
      };
    }
    return {
      outcome: "not_taken",
      reason: "the processor has no operation with this reference",
      evidence: evidence({ status, body: shown }),
      checkedAt,
    };
  }
  if (status !== 200) {
    const kind = status >= 500 ? "failed to answer" : "refused the question";
    return {
      outcome: "unknown",
      reason: `the processor ${kind} (HTTP ${status})`,
      evidence: evidence({ status, body: shown }),
      checkedAt,
    };
  }
  if (!isJson || typeof body !== "object" || body === null) {
    return {
      outcome: "unknown",
      reason: "the processor answered 200 without a JSON object",
      evidence: evidence({ status, body: shown }),
      checkedAt,
    };
  }
  const reading = readStatusWord((body as { status?: unknown }).status, "the processor");
  const receipt = (body as { receipt?: unknown }).receipt;
  return {
    outcome: reading.outcome,
    reason: reading.reason,
    ...(reading.outcome === "taken" ? { receipt: receipt ?? body } : {}),
    evidence: evidence({ status, body }),
    checkedAt,
  };
}

const NOT_JSON = Symbol("not json");

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

async function readCapped(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      return `${new TextDecoder().decode(Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES))}… (cut at ${MAX_BODY_BYTES} bytes)`;
    }
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** "no answer within 5 s", "connection refused (ECONNREFUSED)": the cause, not fetch's "fetch failed". */
export function describeFetchError(error: unknown, timeoutMs: number): string {
  const e = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === "TimeoutError" || e?.name === "AbortError") return `no answer within ${formatSeconds(timeoutMs)}`;
  const code = e?.cause?.code;
  if (code === "ECONNREFUSED") return "connection refused (ECONNREFUSED): nothing listens at that address";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `host not found (${code})`;
  if (code) return `${e.cause?.message ?? "network error"} (${code})`;
  return e?.cause?.message ?? e?.message ?? String(error);
}

export function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
