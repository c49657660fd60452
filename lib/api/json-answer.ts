import { API_CACHE_CONTROL, SMALL_API_CACHE_CONTROL } from "@/lib/security/security-headers";

/**
 * Below this many bytes a JSON answer goes out uncompressed. Next gzips a route's answer whatever
 * its size (its threshold sees no length on a streamed Response), and a gzip stream's set-up cost
 * ~0.6 ms a request against the trivial route's 2.3 ms (docs/bench.md, "The lookup's own cost");
 * on a 100 Mbit/s link 8 KiB take less than that, compressed or not.
 */
export const UNCOMPRESSED_BELOW_BYTES = 8 * 1024;

/** A JSON answer: a small one is marked no-transform, so Next's compression leaves it as it is. */
export function jsonAnswer(body: unknown, status: number): Response {
  const text = JSON.stringify(body);
  const small = Buffer.byteLength(text) < UNCOMPRESSED_BELOW_BYTES;
  return new Response(text, {
    status,
    headers: {
      "content-type": "application/json",
      "cache-control": small ? SMALL_API_CACHE_CONTROL : API_CACHE_CONTROL,
    },
  });
}
