import { contractRoute } from "@/lib/api/contract-route";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { API_CONTRACTS } from "@/lib/api/contracts";
import { openapiContract } from "@/lib/api/contracts/openapi";
import { buildOpenApiDocument } from "@/lib/api/openapi";
import packageJson from "@/package.json";

export const GET = contractRoute(openapiContract, async ({ reply }) =>
  reply(buildOpenApiDocument(API_CONTRACTS, packageJson.version)),
);

export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(openapiContract.method);
