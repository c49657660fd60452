import "server-only";
import { existsSync } from "node:fs";
import path from "node:path";
import { findRunningDemo } from "@/lib/cli/demo-record";
import { env } from "@/lib/config/environment";
import { configPath, loadConfig } from "@/lib/config/load";
import { configSchema, type IdemConfig } from "@/lib/config/schema";
import { embeddedDataDir } from "@/lib/db/embedded-record";

/** Which idem.config.json a CLI command reads, and why that one (null: none, with what was looked for). */
export type CliConfigChoice = { file: string; why: string } | { file: null; why: string };

/** The file name the demo launcher writes its configuration under, in the data directory. */
export const DEMO_CONFIG_NAME = "demo.idem.config.json";

/**
 * The one rule every CLI command finds its configuration by: IDEM_CONFIG when set; else
 * ./idem.config.json when it exists; else the file of a demo running beside it (the demo writes
 * its own under the data directory and records itself in demo.json); else none.
 */
export function chooseCliConfig(): CliConfigChoice {
  if (env().IDEM_CONFIG !== undefined) return { file: configPath(), why: "named by IDEM_CONFIG" };
  const local = configPath();
  if (existsSync(local)) return { file: local, why: "in the working directory" };
  const demo = findRunningDemo();
  if (demo) return { file: demo.configFile, why: `written by the running demo (pid ${demo.pid})` };
  const stale = path.join(embeddedDataDir(), DEMO_CONFIG_NAME);
  const hint = existsSync(stale)
    ? `; a stopped demo left ${shown(stale)} (start the demo, or set IDEM_CONFIG=${shown(stale)})`
    : "; copy idem.config.example.json to idem.config.json, or set IDEM_CONFIG";
  return {
    file: null,
    why: `IDEM_CONFIG is unset, ${shown(local)} does not exist and no demo is running${hint}`,
  };
}

/**
 * The configuration a CLI command works with, chosen by `chooseCliConfig`, after one line on
 * stderr saying which file it is — or, loudly, that there is none and so no tool has a processor
 * to ask. stderr, so `--json` output on stdout stays machine-readable.
 */
export function loadCliConfig(): { config: IdemConfig; file: string | null } {
  const choice = chooseCliConfig();
  if (choice.file === null) {
    console.error(
      `idem config: WARNING no configuration file loaded (${choice.why}). No tool has a processor to ask or a stuckAfter of its own.`,
    );
    return { config: configSchema.parse({}), file: null };
  }
  const config = loadConfig(choice.file);
  console.error(`idem config: ${shown(choice.file)} (${choice.why})`);
  return { config, file: choice.file };
}

/** A path relative to the working directory when it is inside it (shorter, and what the README shows). */
function shown(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : file;
}
