import type { TestProject } from "vitest/node";
import { createTestDatabase } from "../helpers/test-database";
import { freePort } from "../helpers/free-port";
import { startConsoleProcess } from "../helpers/console-process";

/**
 * Starts the console the way `npm run demo` does (the real launcher, a production build,
 * `next start`), on the run's own database and a free port; stops it and drops the database after.
 */
export default async function setup(project: TestProject) {
  const database = await createTestDatabase();
  const console = await startConsoleProcess({
    port: await freePort(),
    env: { DATABASE_URL: database.url, IDEM_DEMO_HISTORY_HOURS: "0" },
  });

  project.provide("databaseUrl", database.url);
  project.provide("databaseKind", database.kind);
  project.provide("baseUrl", console.baseUrl);

  return async () => {
    await console.stop();
    await database.drop();
  };
}
