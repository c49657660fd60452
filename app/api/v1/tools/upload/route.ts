import { z } from "zod";
import { apiRoute } from "@/lib/api/api-route";
import { jsonError } from "@/lib/api/json-error";
import { parseToolsListing, MAX_LISTING_BYTES } from "@/lib/annotations/parse-listing";
import { recordUploadedListing } from "@/lib/annotations/refresh-listings";
import { getDb } from "@/lib/db/client";

const serverName = z.string().regex(/^[A-Za-z0-9_.:-]{1,100}$/);

/**
 * POST /api/v1/tools/upload?server=<name> with the tools/list result (or its JSON-RPC response)
 * as the JSON body → 201 {snapshotId, auditId, tools}. Admins only. Bad JSON or the wrong shape
 * is a 400 saying what is wrong.
 */
export const POST = apiRoute("tools:configure", async ({ request, actor }) => {
  const server = serverName.safeParse(new URL(request.url).searchParams.get("server"));
  if (!server.success) return jsonError(400, "bad_server", "?server= must name the server this listing belongs to (letters, digits, _ . : -).");
  const text = await request.text();
  if (text.length > MAX_LISTING_BYTES) return jsonError(413, "too_large", `The listing is over ${MAX_LISTING_BYTES / 1024 / 1024} MiB.`);
  const parsed = parseToolsListing(text);
  if (!parsed.ok) return jsonError(400, "bad_listing", parsed.message);
  const stored = await recordUploadedListing(getDb(), actor, server.data, parsed.tools);
  return Response.json({ ...stored, tools: parsed.tools.length }, { status: 201 });
});
