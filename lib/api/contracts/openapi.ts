import { z } from "zod";
import { defineContract } from "@/lib/api/contract";
import { API_ROUTES } from "@/lib/api/routes";

/**
 * The API's own description. Any signed-in caller (records:read, which every role holds) may
 * read it: it names routes, fields and error codes, no data; but the console is an internal tool,
 * so an anonymous caller gets no map of it.
 */
export const openapiContract = defineContract({
  ...API_ROUTES.openapi,
  tag: "session",
  summary: "This API as an OpenAPI 3.1 document, generated from the route contracts.",
  action: "records:read",
  responses: {
    200: {
      description: "The OpenAPI document.",
      schema: z.looseObject({ openapi: z.literal("3.1.0"), paths: z.record(z.string(), z.unknown()) }),
    },
  },
  errors: [],
  examples: [{ name: "the document", status: 200 }],
});
