import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { toolsAddServerContract } from "@/lib/api/contracts/tools";
import { addHttpServer } from "@/lib/annotations/server-store";
import { getConfig } from "@/lib/config/load";

/** Admins only; `transport: "stdio"` or any command field is a 400: stdio servers come only from the file. */
export const POST = contractRoute(toolsAddServerContract, async ({ db, actor, body, reply }) => {
  const outcome = await addHttpServer(db, getConfig(), actor, body);
  if (!outcome.ok) return outcome;
  return reply({ server: outcome.server }, 201);
});

export const { GET, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(toolsAddServerContract.method);
