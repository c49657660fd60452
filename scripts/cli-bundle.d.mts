// Types of scripts/cli-bundle.mjs (plain JavaScript: `npm run idem` runs it before anything is compiled).
export const DEFAULT_CACHE: string;
export const EXPORT_WORKER: string;
export const HISTORY_WORKER: string;
export function cliEntry(cache?: string): Promise<string>;
export function buildCli(cache?: string): Promise<{ entry: string; inputs: number }>;
export function pointerFile(cache: string): string;
