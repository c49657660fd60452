/** Every API error has this shape: {error: {code, message}} with a 4xx (or, rarely, 5xx) status. */
export function jsonError(status: number, code: string, message: string, extra?: Record<string, unknown>): Response {
  return Response.json({ error: { code, message, ...extra } }, { status });
}
