// For users who have Prisma's schema-engine binary: `prisma migrate deploy` reads the same
// migrations the console's own offline runner applies (`npm run idem -- migrate`).
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "" },
});
