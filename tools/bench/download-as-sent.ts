import http from "node:http";

export type SentDownload = {
  status: number;
  /** Bytes as they came over the wire (compressed, when the console compressed them). */
  bytes: number;
  contentEncoding: string | null;
  /** False when the time ran out after the answer began. */
  finished: boolean;
  /** A refused download's body, for its message; null for a 2xx answer. */
  body: string | null;
};

/**
 * Downloads `url` as a browser asks for it (gzip accepted) and counts the bytes as they arrive, without
 * inflating them. The console does the same work either way; but the bench's users share this process's
 * event loop, and inflating 37 MB that nobody keeps held their requests up and was counted against the
 * export (docs/bench.md, "the downloader's own cost"). Refused when no answer began within `timeoutMs`.
 */
export function downloadAsSent(url: string, headers: Record<string, string>, timeoutMs: number): Promise<SentDownload> {
  return new Promise((resolve, reject) => {
    let answer: Omit<SentDownload, "finished"> | null = null;
    const timer = setTimeout(() => {
      request.destroy();
      if (answer) resolve({ ...answer, finished: false });
      else reject(new Error(`${url}: no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const request = http.get(url, { headers: { ...headers, "accept-encoding": "gzip" } }, (response) => {
      const status = response.statusCode ?? 0;
      const ok = status >= 200 && status < 300;
      const kept: Buffer[] = [];
      const started = { status, bytes: 0, contentEncoding: response.headers["content-encoding"] ?? null, body: null };
      answer = started;
      response.on("data", (chunk: Buffer) => {
        started.bytes += chunk.byteLength;
        if (!ok) kept.push(chunk);
      });
      response.on("end", () => {
        clearTimeout(timer);
        resolve({ ...started, body: ok ? null : Buffer.concat(kept).toString("utf8"), finished: true });
      });
    });
    request.on("error", (error) => {
      clearTimeout(timer);
      if (!answer) reject(error);
    });
  });
}
