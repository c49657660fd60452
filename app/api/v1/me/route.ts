import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { meContract } from "@/lib/api/contracts/operations";

export const GET = contractRoute(meContract, async ({ actor, reply }) =>
  reply({ kind: actor.kind, name: actor.name, role: actor.role, tenants: actor.tenants }),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(meContract.method);
