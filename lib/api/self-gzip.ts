import "server-only";
import { pipeline, Readable } from "node:stream";
import type { ReadableStream as NodeWebStream } from "node:stream/web";
import { createGzip } from "node:zlib";
import { acceptsGzip, SELF_GZIPPED_PATHS } from "@/lib/api/gzip-accepted";

/** zlib's fastest level: on 37 MB of CSV it took half the CPU of Next's level 6, for 4 % more bytes. */
export const SELF_GZIP_LEVEL = 1;

/**
 * An API answer, gzipped here when its path is one next.config.ts labels gzip for this request
 * (lib/api/gzip-accepted.ts). Every answer on such a path passes through here (apiRoute), refusals and
 * errors included, so the label never sits on a plain body.
 */
export function gzipWhereLabelled(request: Request, path: string, response: Response): Response {
  if (!response.body || !SELF_GZIPPED_PATHS.has(path) || !acceptsGzip(request.headers.get("accept-encoding")))
    return response;
  const gzip = createGzip({ level: SELF_GZIP_LEVEL });
  // pipeline, not pipe: a download cut short destroys the gzip stream, and that cancels the answer's
  // own stream too (an export stops reading its batches).
  pipeline(Readable.fromWeb(response.body as NodeWebStream<Uint8Array>), gzip, () => undefined);
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(Readable.toWeb(gzip) as ReadableStream<Uint8Array>, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}
