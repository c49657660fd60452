import type { z } from "zod";
import { jsonError } from "@/lib/api/json-error";
import { findUnstorableText } from "@/lib/text/storable-text";

/** Bodies are small (a reason, a filter, at most a few hundred keys): anything bigger is a mistake. */
const MAX_BODY_BYTES = 256 * 1024;

export type JsonBody<T> = { ok: true; value: T } | { ok: false; response: Response };

/**
 * Reads a JSON request body and validates it: not JSON, too big, or not the expected shape is a
 * 400 `{error: {code: "bad_request", message, fields}}` naming each bad field — never a 500. Text
 * PostgreSQL cannot store (NUL characters, lone surrogates) is refused here for every route.
 */
export async function readJsonBody<S extends z.ZodType>(request: Request, schema: S): Promise<JsonBody<z.output<S>>> {
  const text = await request.text();
  if (text.length > MAX_BODY_BYTES)
    return {
      ok: false,
      response: jsonError(413, "too_large", `The request body is over ${MAX_BODY_BYTES / 1024} KiB.`),
    };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return {
      ok: false,
      response: jsonError(
        400,
        "bad_json",
        text.trim() === "" ? "The request needs a JSON body." : "The request body is not valid JSON.",
      ),
    };
  }
  // Checked before the schema, for every route at once: such text would fail in the database.
  const unstorable = findUnstorableText(json);
  if (unstorable)
    return {
      ok: false,
      response: jsonError(400, "bad_text", `${unstorable.field}: ${unstorable.message}.`, { fields: [unstorable] }),
    };
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const fields = parsed.error.issues
      .slice(0, 10)
      .map((issue) => ({ field: issue.path.join(".") || "(body)", message: issue.message }));
    return {
      ok: false,
      response: jsonError(400, "bad_request", fields.map((f) => `${f.field}: ${f.message}`).join("; "), { fields }),
    };
  }
  return { ok: true, value: parsed.data };
}
