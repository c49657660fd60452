// The export under load (issue #31, item 1) against a bench database kept with --keep:
//   npx tsx --conditions=react-server tools/bench/export-load.ts <database-url> [seconds=20] [users=16]
// Starts the production console on that database as the bench does (building first if stale), then
// runs tools/bench/export-under-load.ts: the whole-bound CSV export alone three times, then twice in
// turn the users without and with exports back to back. Prints the figures as JSON. The same
// measurement runs inside `idem bench-writers`; this one reuses a loaded table, for before/after runs.
import pg from "pg";
import { apiUrl } from "@/lib/api/api-url";
import { API_ROUTES } from "@/lib/api/routes";
import { parseWholeNumber } from "@/lib/field-rules/whole-number";
import { startBenchServer } from "./bench-server";
import { measureExportUnderLoad } from "./export-under-load";
import { EXPORT_KIND, loadKinds, warmUp } from "./writer-impact";

const [url, secondsText, usersText] = process.argv.slice(2);
if (!url || !/^postgres(ql)?:\/\//.test(url))
  refuse("expected a database URL first (a bench database kept with --keep)");
const seconds = number(secondsText, "seconds", 1, 600, 20);
const users = number(usersText, "users", 1, 256, 16);

function number(text: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (text === undefined) return fallback;
  const parsed = parseWholeNumber(text, min, max);
  return parsed.ok ? parsed.value : refuse(`${name}: ${parsed.message}`);
}

function refuse(message: string): never {
  console.error(`export-load: ${message}`);
  process.exit(2);
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const client = new pg.Client({ connectionString: url });
await client.connect();
const server = await startBenchServer(url, log);
try {
  const { rows } = await client.query<{ end: Date; n: number }>(
    "SELECT max(created_at) AS end, count(*)::int AS n FROM idempotency",
  );
  const table = rows[0]!;
  const load = {
    rows: table.n,
    events: 0,
    duplicates: 0,
    end: table.end.toISOString(),
    seconds: { rows: 0, indexes: 0, rollup: 0, scan: 0, vacuum: 0 },
  };
  const kinds = await loadKinds(url, server.config, table.n, load, log);
  await warmUp(server, kinds, log);
  const result = await measureExportUnderLoad(
    server,
    kinds.filter((kind) => kind.name !== EXPORT_KIND),
    apiUrl(API_ROUTES.exportRecords, {}, { format: "csv" }),
    { users, seconds, beforePhase: async () => void (await client.query("CHECKPOINT")), log },
  );
  console.log(JSON.stringify(result, null, 2));
} finally {
  await server.stop();
  await client.end();
}
