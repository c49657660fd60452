import path from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Node's arguments that start the CLI exactly as `npm run idem` does (package.json): the launcher
 * that runs its bundle, under the react-server condition. Append the command and its options.
 */
export function idemNodeArgs(): string[] {
  return ["--conditions=react-server", path.resolve("scripts/idem.mjs")];
}

/**
 * Node's arguments that run a TypeScript file with tsx's loader in the same process. tsx's own CLI
 * would start a second Node process for every spawn (about 0.3 CPU s more on these cores).
 */
export function tsxNodeArgs(script: string): string[] {
  return ["--import", pathToFileURL(path.resolve("node_modules/tsx/dist/loader.mjs")).href, path.resolve(script)];
}
