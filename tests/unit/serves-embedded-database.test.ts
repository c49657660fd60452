import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { resetEnvironment } from "@/lib/config/environment";
import { readsMayStartBesideChecks, servesEmbeddedDatabase } from "@/lib/db/client";
import { removeEmbeddedRecord, writeEmbeddedRecord } from "@/lib/db/embedded-record";

const EMBEDDED = "postgresql://postgres:postgres@127.0.0.1:41234/postgres?sslmode=disable";
const saved = { url: process.env.DATABASE_URL, dir: process.env.IDEM_DATA_DIR };
const dataDir = mkdtempSync(path.join(tmpdir(), "idem-embedded-record-"));

const serve = (url: string | undefined) => {
  if (url === undefined) delete process.env.DATABASE_URL;
  else process.env.DATABASE_URL = url;
  resetEnvironment();
};

// The launcher hands the embedded database to `next start` as DATABASE_URL: the server must still know
// it is the embedded one, whose one backend gains nothing from a read beside the token check.
describe("servesEmbeddedDatabase", () => {
  beforeEach(() => {
    process.env.IDEM_DATA_DIR = dataDir;
    removeEmbeddedRecord(dataDir);
  });
  afterAll(() => {
    serve(saved.url);
    if (saved.dir === undefined) delete process.env.IDEM_DATA_DIR;
    else process.env.IDEM_DATA_DIR = saved.dir;
    resetEnvironment();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("is the embedded database when DATABASE_URL is the URL a live launcher's record names", () => {
    writeEmbeddedRecord(dataDir, { pid: process.pid, url: EMBEDDED, port: 41234, startedAt: new Date().toISOString() });
    serve(EMBEDDED);
    expect(servesEmbeddedDatabase()).toBe(true);
    expect(readsMayStartBesideChecks()).toBe(false);
  });

  it("is a server of its own when DATABASE_URL names another, or the record's launcher is gone", () => {
    writeEmbeddedRecord(dataDir, { pid: process.pid, url: EMBEDDED, port: 41234, startedAt: new Date().toISOString() });
    serve("postgresql://postgres@127.0.0.1:5432/postgres");
    expect(servesEmbeddedDatabase()).toBe(false);
    expect(readsMayStartBesideChecks()).toBe(true);
    // A pid no process has (beyond pid_max): the record outlived its launcher.
    writeEmbeddedRecord(dataDir, { pid: 2 ** 22 + 1, url: EMBEDDED, port: 41234, startedAt: new Date().toISOString() });
    serve(EMBEDDED);
    expect(servesEmbeddedDatabase()).toBe(false);
  });

  it("is the embedded database without DATABASE_URL", () => {
    serve(undefined);
    expect(servesEmbeddedDatabase()).toBe(true);
    expect(readsMayStartBesideChecks()).toBe(false);
  });
});
