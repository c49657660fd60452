/**
 * Reads a response's body to its end without keeping it, handing each chunk to `onChunk`; returns
 * its size in bytes. On `signal`'s abort the reader is cancelled, which settles a pending read at
 * once: an aborted fetch's body read alone was seen to hang (node's fetch, a streaming export).
 */
export async function readBody(
  response: Response,
  onChunk?: (chunk: Uint8Array) => void,
  signal?: AbortSignal,
): Promise<number> {
  if (!response.body) return 0;
  const reader = response.body.getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  if (signal?.aborted) cancel();
  signal?.addEventListener("abort", cancel, { once: true });
  let bytes = 0;
  try {
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      bytes += part.value.byteLength;
      onChunk?.(part.value);
    }
  } finally {
    signal?.removeEventListener("abort", cancel);
  }
  return bytes;
}
