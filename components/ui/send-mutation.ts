/**
 * The console's one way for a client component to change something through its own API: sends
 * JSON (or a given body) to the same origin with the session cookie, reads the API's
 * `{error: {code, message}}` answer, and returns a typed result instead of throwing. Every
 * client mutation goes through here, so every failure reads the same way.
 */

export type MutationFailure = {
  ok: false;
  /** The HTTP status, or null when the console could not be reached. */
  status: number | null;
  /** The API's error code (`conflict`, `forbidden`, …); `unreachable` or `bad_answer` from here. */
  code: string;
  message: string;
  /** The API's whole error object, for the fields some errors add (a conflict's `current`). */
  error: Record<string, unknown>;
};

export type MutationResult<T> = { ok: true; status: number; value: T } | MutationFailure;

type Options<T> = {
  /** Sent as JSON. Leave out for a POST without a body. */
  json?: unknown;
  /** A body sent as it is (an uploaded file's text), with its content type. */
  raw?: { body: string; contentType: string };
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** What "could not be reached" should add (e.g. "Nothing was changed."). */
  unreachable?: string;
  /** Checks a 2xx answer is the shape the caller expects; a mismatch is a failure, not a crash. */
  accept?: (value: unknown) => value is T;
};

type ErrorBody = { error?: { code?: unknown; message?: unknown } & Record<string, unknown> };

export async function sendMutation<T = unknown>(url: string, options: Options<T> = {}): Promise<MutationResult<T>> {
  const { json, raw, method = "POST", unreachable, accept } = options;
  const headers: Record<string, string> = { accept: "application/json" };
  let body: string | undefined;
  if (raw) {
    headers["content-type"] = raw.contentType;
    body = raw.body;
  } else if (json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(json);
  }
  let response: Response;
  try {
    response = await fetch(url, { method, headers, body, credentials: "same-origin", cache: "no-store" });
  } catch {
    return failure(null, "unreachable", ["The console could not be reached.", unreachable].filter(Boolean).join(" "));
  }
  const answer: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const error = (answer as ErrorBody | null)?.error;
    const message = typeof error?.message === "string" ? error.message : `The console answered ${response.status}.`;
    const code = typeof error?.code === "string" ? error.code : "http_error";
    return { ok: false, status: response.status, code, message, error: error ?? {} };
  }
  if (accept && !accept(answer))
    return failure(
      response.status,
      "bad_answer",
      `The console's answer was not what this page expected (status ${response.status}).`,
    );
  return { ok: true, status: response.status, value: answer as T };
}

function failure(status: number | null, code: string, message: string): MutationFailure {
  return { ok: false, status, code, message, error: {} };
}
