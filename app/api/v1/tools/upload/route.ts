import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { toolsUploadContract } from "@/lib/api/contracts/tools";
import { parseToolsListing, MAX_LISTING_BYTES } from "@/lib/annotations/parse-listing";
import { recordUploadedListing } from "@/lib/annotations/refresh-listings";
import { serverNameSchema } from "@/lib/field-rules/names";

/** The body is read here, not by the wrapper: a listing may be bigger than a request body (2 MiB). */
export const POST = contractRoute(toolsUploadContract, async ({ request, db, actor, query, reply }) => {
  if (query.server === undefined || !serverNameSchema.safeParse(query.server).success) {
    return {
      ok: false,
      code: "bad_server",
      message: "?server= must name the server this listing belongs to (letters, digits, _ . : -).",
    };
  }
  const text = await request.text();
  if (text.length > MAX_LISTING_BYTES)
    return { ok: false, code: "too_large", message: `The listing is over ${MAX_LISTING_BYTES / 1024 / 1024} MiB.` };
  const parsed = parseToolsListing(text);
  if (!parsed.ok) return { ok: false, code: "bad_listing", message: parsed.message };
  const stored = await recordUploadedListing(db, actor, query.server, parsed.tools);
  return reply({ ...stored, tools: parsed.tools.length }, 201);
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(toolsUploadContract.method);
