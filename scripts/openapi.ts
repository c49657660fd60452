// Prints the OpenAPI 3.1 document of /api/v1, generated from the route contracts (the same
// document GET /api/v1/openapi.json serves): `npm run --silent openapi > openapi.json`.
import { API_CONTRACTS } from "@/lib/api/contracts";
import { buildOpenApiDocument } from "@/lib/api/openapi";
import packageJson from "@/package.json";

process.stdout.write(`${JSON.stringify(buildOpenApiDocument(API_CONTRACTS, packageJson.version), null, 2)}\n`);
