/** POSTs to the console's own API (same origin, session cookie) and returns its error message, if any. */
export async function postToApi(url: string, body: string, contentType = "application/json"): Promise<{ ok: true; json: unknown } | { ok: false; message: string }> {
  try {
    const response = await fetch(url, { method: "POST", headers: { "content-type": contentType }, body });
    const json = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
    if (!response.ok) return { ok: false, message: json?.error?.message ?? `The console answered ${response.status}.` };
    return { ok: true, json };
  } catch {
    return { ok: false, message: "The console could not be reached." };
  }
}
