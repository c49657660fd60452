import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { env } from "@/lib/config/environment";

/** Where the process serving the embedded database says it is: `<dataDir>/embedded.json`. */
export type EmbeddedServerRecord = { pid: number; url: string; port: number; startedAt: string };

export function embeddedDataDir(): string {
  // turbopackIgnore: a runtime path, not a file the build should trace.
  return path.resolve(/* turbopackIgnore: true */ process.cwd(), env().IDEM_DATA_DIR ?? ".data");
}

function recordPath(dataDir: string): string {
  return path.join(/* turbopackIgnore: true */ dataDir, "embedded.json");
}

/** The URL of an embedded database a live process is serving, if any. */
export function findRunningEmbeddedDatabase(dataDir = embeddedDataDir()): string | null {
  let record: EmbeddedServerRecord;
  try {
    record = JSON.parse(readFileSync(recordPath(dataDir), "utf8")) as EmbeddedServerRecord;
  } catch {
    return null;
  }
  return isProcessAlive(record.pid) ? record.url : null;
}

export function writeEmbeddedRecord(dataDir: string, record: EmbeddedServerRecord): void {
  writeFileSync(recordPath(dataDir), JSON.stringify(record, null, 2));
}

export function removeEmbeddedRecord(dataDir: string): void {
  rmSync(recordPath(dataDir), { force: true });
}

/** Whether a process with this id runs (EPERM: it does, as another user). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}
