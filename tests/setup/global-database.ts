import type { TestProject } from "vitest/node";
import { createTestDatabase } from "../helpers/test-database";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    databaseKind: "postgres" | "embedded";
    baseUrl: string;
  }
}

/** One migrated database for the whole run, dropped at the end. */
export default async function setup(project: TestProject) {
  const database = await createTestDatabase();
  project.provide("databaseUrl", database.url);
  project.provide("databaseKind", database.kind);
  project.provide("baseUrl", "");
  return () => database.drop();
}
