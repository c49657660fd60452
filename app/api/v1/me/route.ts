import { apiRoute } from "@/lib/api/api-route";

/** Who the caller is, as the console sees them: useful to check a token. */
export const GET = apiRoute("records:read", async ({ actor }) =>
  Response.json({ kind: actor.kind, name: actor.name, role: actor.role, tenants: actor.tenants }),
);
