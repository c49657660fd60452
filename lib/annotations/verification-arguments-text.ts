/**
 * The Tools page's "Verify…" form reads the tool's arguments as JSON text. Bad text is a sentence
 * that says what is wrong before anything is sent (the route refuses it too): a verification calls
 * a real server, so a typo should cost nothing. Imported by client components: no server code here.
 */
export type ParsedArgumentsText = { ok: true; value: Record<string, unknown> } | { ok: false; message: string };

export function parseArgumentsText(text: string): ParsedArgumentsText {
  if (text.trim() === "")
    return { ok: false, message: 'Give the arguments as a JSON object, e.g. {"card": "c_4242"} ({} for none).' };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `The arguments are not valid JSON: ${(error as Error).message}. Nothing was called.` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    const got = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
    return {
      ok: false,
      message: `The arguments must be a JSON object, e.g. {"card": "c_4242"} ({} for none); this is ${got}. Nothing was called.`,
    };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/** The concurrency the form offers: the route's range (2..8), 2 by default. */
export const VERIFY_CONCURRENCY_CHOICES = [2, 3, 4, 5, 6, 7, 8] as const;
