import type { IncomingMessage, ServerResponse } from "node:http";

/** Bodies above this are refused: the demo upstreams only ever see small JSON objects. */
export const MAX_BODY_BYTES = 64 * 1024;

/** A failure the route means to report: becomes `{error: {code, message}}` with this status. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export function errorReply(status: number, code: string, message: string): Reply {
  return { status, body: { error: { code, message } } };
}

/**
 * Reads the whole body and parses it as a JSON object. Oversized bodies are drained rather than
 * cut off, so the client reads a clean 413 instead of a connection reset.
 */
export async function readJsonObject(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  }
  if (size > limit) throw new HttpError(413, "payload_too_large", `request body exceeds ${limit} bytes`);
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") throw new HttpError(400, "invalid_json", "request body is empty; expected a JSON object");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, "invalid_json", "request body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new HttpError(400, "invalid_json", "request body must be a JSON object");
  }
  return value as Record<string, unknown>;
}

/** Writes a JSON reply unless the client is already gone (a timed-out caller, a stopped server). */
export function sendJson(res: ServerResponse, reply: Reply): void {
  if (res.destroyed || res.writableEnded) return;
  const text = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...reply.headers,
  });
  res.end(text);
}
