/** The caller-facing sentences, always in three parts: the ref, what not to do, what to call. */
export function inFlightMessage(noun: string, ref: string, statusTool: string): string {
  return `${noun} with these exact details is already in progress (ref ${ref}). Do not submit it again; call ${statusTool} with this ref.`;
}

/**
 * The key names an operation already submitted with other arguments (a business key reused for a
 * different call): refused, never answered with the first call's response.
 */
export function argumentsMismatchMessage(noun: string, ref: string, statusTool: string): string {
  return `${noun} with this business key was already submitted with other arguments (ref ${ref}); this call was refused and not performed. Do not repeat it with the same business key; use a new one (such as a new order id) for a different operation, or call ${statusTool} with this ref to see the first.`;
}

export function outcomeUnknownMessage(
  upstream: string,
  noun: string,
  ref: string,
  statusTool: string,
  waitedMs?: number,
): string {
  const waited = waitedMs === undefined ? "in time" : `within ${formatSeconds(waitedMs)} s`;
  return `The ${upstream} did not answer ${waited}. ${noun} may or may not have been taken; ref ${ref} is recorded. Call ${statusTool} with this ref before doing anything else. Do not retry this call.`;
}

function formatSeconds(ms: number): string {
  return ms < 10_000 ? (ms / 1000).toFixed(1) : String(Math.round(ms / 1000));
}
