/** The four behavioural hints of the MCP spec, as a server declared them (absent = not declared). */
export type DeclaredAnnotations = {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
};

export const HINT_NAMES = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;
export type HintName = (typeof HINT_NAMES)[number];

/**
 * What a host acts on after the spec's defaults. destructive and idempotent mean something only
 * when the tool is not read-only: for a read-only tool they are `null` ("does not apply").
 */
export type EffectiveAnnotations = {
  readOnlyHint: boolean;
  destructiveHint: boolean | null;
  idempotentHint: boolean | null;
  openWorldHint: boolean;
};

/**
 * One tool as a listing named it: the name, its annotations and its input schema as sent (kept raw
 * in snapshots; the schema is what the Verify dialog shows, and part of the entry a verification hashes).
 */
export type ListedTool = {
  name: string;
  title?: string;
  annotations?: Record<string, unknown>;
  inputSchema?: Record<string, unknown>;
};
