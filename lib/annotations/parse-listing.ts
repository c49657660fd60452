import { z } from "zod";
import { findUnstorableText } from "@/lib/text/storable-text";
import type { ListedTool } from "@/lib/tool-listings/annotation-types";

/** Uploads are a listing, not a data set: anything bigger is a mistake. */
export const MAX_LISTING_BYTES = 2 * 1024 * 1024;
/** The server an uploaded listing belongs to: letters, digits, _ . : - (as the config file names servers). */
export const UPLOAD_SERVER_NAME = /^[A-Za-z0-9_.:-]{1,100}$/;

const toolSchema = z.looseObject({
  name: z.string().min(1, "a tool needs a name").max(200),
  title: z.string().optional(),
  annotations: z.looseObject({}).optional(),
  inputSchema: z.looseObject({}).optional(),
});
const resultSchema = z.looseObject({ tools: z.array(toolSchema).max(5000), nextCursor: z.string().optional() });

export type ParsedListing = { ok: true; tools: ListedTool[] } | { ok: false; message: string };

/**
 * Reads an uploaded `tools/list` result (or the JSON-RPC response around it). Bad JSON or the
 * wrong shape is a message naming the problem; duplicate tool names are refused because a
 * listing that names a tool twice cannot say which annotations hosts see.
 */
export function parseToolsListing(input: string | unknown): ParsedListing {
  let json: unknown = input;
  if (typeof input === "string") {
    if (input.length > MAX_LISTING_BYTES)
      return { ok: false, message: `The listing is over ${MAX_LISTING_BYTES / 1024 / 1024} MiB.` };
    try {
      json = JSON.parse(input);
    } catch (error) {
      return { ok: false, message: `The listing is not valid JSON (${(error as Error).message}).` };
    }
  }
  // Either the result itself, or the whole JSON-RPC response holding it.
  const isResponse = typeof json === "object" && json !== null && (json as { jsonrpc?: unknown }).jsonrpc === "2.0";
  const parsed = resultSchema.safeParse(isResponse ? (json as { result?: unknown }).result : json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where =
      issue && issue.path.length
        ? `${isResponse ? "result." : ""}${issue.path.join(".")}`
        : isResponse
          ? "result"
          : "(top level)";
    return {
      ok: false,
      message: `Not a tools/list result: expected {"tools": [{"name": …, "annotations": {…}}]} or a JSON-RPC response holding one (${where}: ${issue?.message ?? "wrong shape"}).`,
    };
  }
  const result = parsed.data;
  const seen = new Set<string>();
  for (const tool of result.tools) {
    if (seen.has(tool.name))
      return { ok: false, message: `The listing names the tool ${JSON.stringify(tool.name)} twice.` };
    seen.add(tool.name);
  }
  const tools: ListedTool[] = result.tools.map((t) => ({
    name: t.name,
    ...(t.title !== undefined ? { title: t.title } : {}),
    ...(t.annotations ? { annotations: t.annotations as Record<string, unknown> } : {}),
    ...(t.inputSchema ? { inputSchema: t.inputSchema as Record<string, unknown> } : {}),
  }));
  // What is kept is stored as jsonb, which cannot hold NUL characters or lone surrogates.
  const unstorable = findUnstorableText(tools, ["tools"]);
  if (unstorable)
    return { ok: false, message: `The listing cannot be stored: ${unstorable.field} ${unstorable.message}.` };
  return { ok: true, tools };
}
