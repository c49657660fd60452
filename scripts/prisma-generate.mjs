// Generates the Prisma client offline. `prisma generate` only needs the schema engine
// path to exist (STACK.md); migrations are applied by the project's own runner.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

if (!existsSync("prisma/schema.prisma")) process.exit(0);
const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) env.PRISMA_SCHEMA_ENGINE_BINARY = "/bin/false";
const result = spawnSync("npx", ["--no-install", "prisma", "generate"], { stdio: "inherit", env });
process.exit(result.status ?? 1);
