// `npm run idem -- …`: the CLI, from its bundle (scripts/cli-bundle.mjs), rebuilt first when its
// sources changed. Run with `node --conditions=react-server`, as the bundle's imports expect.
import { pathToFileURL } from "node:url";
import { cliEntry } from "./cli-bundle.mjs";

// Stack traces (IDEM_DEBUG) name the TypeScript sources, not the bundle's lines.
if (process.env.IDEM_DEBUG) process.setSourceMapsEnabled(true);

let entry;
try {
  entry = await cliEntry();
} catch (error) {
  // esbuild has printed each error with its file and line already.
  console.error(`idem: the CLI could not be built from its sources: ${error.message.split("\n")[0]}`);
  process.exit(1);
}
await import(pathToFileURL(entry).href);
