import { readFileSync } from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { env } from "@/lib/config/environment";
import { configSchema, type IdemConfig } from "@/lib/config/schema";
import { UserError } from "@/lib/errors/user-error";

export function configPath(): string {
  // turbopackIgnore: read at run time, not traced into the build.
  return path.resolve(/* turbopackIgnore: true */ process.cwd(), env().IDEM_CONFIG ?? "idem.config.json");
}

/**
 * Reads and validates the configuration file. A missing file at the default path means
 * "no tools configured"; a missing file that IDEM_CONFIG names, bad JSON or a bad field is
 * an error naming the file and the field.
 */
export function loadConfig(file = configPath()): IdemConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const explicit = env().IDEM_CONFIG !== undefined;
    if ((error as { code?: string }).code === "ENOENT" && !explicit) return configSchema.parse({});
    throw new UserError(`${file}: cannot read the configuration file (${(error as Error).message}).`);
  }
  return parseConfig(text, file);
}

export function parseConfig(text: string, file = "idem.config.json"): IdemConfig {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UserError(`${file}: not valid JSON (${(error as Error).message}).`);
  }
  const result = configSchema.safeParse(json);
  if (!result.success) throw new UserError(`${file}: ${formatIssues(result.error.issues)}`);
  return result.data;
}

function formatIssues(issues: z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length ? issue.path.join(".") : "(top level)"}: ${issue.message}`)
    .join("; ");
}

let cached: { file: string; config: IdemConfig } | undefined;

/** The validated configuration, read once per process. */
export function getConfig(): IdemConfig {
  const file = configPath();
  if (!cached || cached.file !== file) cached = { file, config: loadConfig(file) };
  return cached.config;
}
