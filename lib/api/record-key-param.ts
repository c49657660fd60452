import { z } from "zod";
import type { PathSpec } from "@/lib/api/contract";
import { KEY_TEXT, parseKeyParam } from "@/lib/records/record-detail";

/**
 * The `{key}` of /api/v1/records/{key}/…: the key, or the refusal every such route answers for a
 * malformed key (bad_key) or a 12-hex ref given where a full key belongs (ref_not_key).
 */
export const recordKeyPath: PathSpec<{ key: string }> = {
  params: z.object({
    key: z
      .string()
      .regex(KEY_TEXT)
      .describe(
        "The record's key: 64 hex characters (or up to 255 printable characters for other writers), URL-encoded. A 12-hex ref is refused (ref_not_key): look it up first.",
      ),
  }),
  parse(raw) {
    const param = parseKeyParam(raw.key ?? "");
    if (param.kind === "invalid") return { ok: false, code: "bad_key", message: param.message };
    if (param.kind === "ref") {
      return {
        ok: false,
        code: "ref_not_key",
        message: `${param.ref} is a 12-hex ref, not a key: look it up first with GET /api/v1/lookup?q=${param.ref}.`,
      };
    }
    return { ok: true, value: { key: param.key } };
  },
};
