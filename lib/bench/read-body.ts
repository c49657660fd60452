/** Reads a response's body to its end without keeping it, handing each chunk to `onChunk`; returns its size in bytes. */
export async function readBody(response: Response, onChunk?: (chunk: Uint8Array) => void): Promise<number> {
  if (!response.body) return 0;
  const reader = response.body.getReader();
  let bytes = 0;
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    bytes += part.value.byteLength;
    onChunk?.(part.value);
  }
  return bytes;
}
