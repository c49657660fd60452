import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { embeddedDataDir, isProcessAlive } from "@/lib/db/embedded-record";

/**
 * `<dataDir>/demo.json`: which process runs the demo world and the idem.config.json it wrote, so
 * the CLI beside a running demo reads the same configuration the demo console serves
 * (lib/cli/cli-config.ts). Written when the demo world is up, removed when it stops.
 */
export type DemoRecord = { pid: number; configFile: string; startedAt: string };

function recordPath(dataDir: string): string {
  return path.join(/* turbopackIgnore: true */ dataDir, "demo.json");
}

export function writeDemoRecord(record: DemoRecord, dataDir = embeddedDataDir()): void {
  writeFileSync(recordPath(dataDir), JSON.stringify(record, null, 2));
}

export function removeDemoRecord(dataDir = embeddedDataDir()): void {
  rmSync(recordPath(dataDir), { force: true });
}

/** The demo a live process is running, or null (no record, or its process is gone). */
export function findRunningDemo(dataDir = embeddedDataDir()): DemoRecord | null {
  let record: DemoRecord;
  try {
    record = JSON.parse(readFileSync(recordPath(dataDir), "utf8")) as DemoRecord;
  } catch {
    return null;
  }
  return typeof record.pid === "number" && typeof record.configFile === "string" && isProcessAlive(record.pid)
    ? record
    : null;
}
