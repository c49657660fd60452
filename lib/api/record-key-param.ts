import { jsonError } from "@/lib/api/json-error";
import { parseKeyParam } from "@/lib/records/record-detail";

/**
 * The `{key}` of /api/v1/records/{key}/…: the key, or the 400 every such route answers for a
 * malformed key or a 12-hex ref given where a full key belongs.
 */
export function recordKeyFromPath(raw: string): { ok: true; key: string } | { ok: false; response: Response } {
  const param = parseKeyParam(raw);
  if (param.kind === "invalid") return { ok: false, response: jsonError(400, "bad_key", param.message) };
  if (param.kind === "ref") {
    return { ok: false, response: jsonError(400, "ref_not_key", `${param.ref} is a 12-hex ref, not a key: look it up first with GET /api/v1/lookup?q=${param.ref}.`) };
  }
  return { ok: true, key: param.key };
}
