import ipaddr from "ipaddr.js";
import { z } from "zod";
import { durationOrOffSchema, durationSchema } from "@/lib/config/duration";
import { configuredToolNameSchema, serverNameSchema } from "@/lib/field-rules/names";
import { parseSearchPath, redactingRule, RESERVED_SEARCH_LABELS, SEARCH_LABEL } from "@/lib/config/searchable-fields";

/** Milliseconds: a page or API read gives up after 5 s, a write never waits more than 2 s for a row lock, an export may run 60 s. */
export const DEFAULT_DATABASE_TIMEOUTS = {
  connectTimeout: 5_000,
  statementTimeout: 5_000,
  lockTimeout: 2_000,
  exportStatementTimeout: 60_000,
};

/**
 * The most parallel workers one console statement may start on the primary (its sessions'
 * max_parallel_workers_per_gather). None: the pools bound the console's statements, and a parallel plan
 * would add processes beyond that bound on the writers' server (docs/scaling.md, "Parallel workers").
 */
export const DEFAULT_CONSOLE_PARALLEL_WORKERS = 0;

/** Past this the pages that read from the replica (DATABASE_READ_URL) say how far behind it is, and /api/health too. */
export const DEFAULT_REPLICA_LAG_WARNING_MS = 5_000;

/** Masked when the config names none (docs/architecture.md#roles-and-permissions): card data, contact details, addresses. */
export const DEFAULT_REDACT_PATHS = [
  "$..card",
  "$..card_number",
  "$..email",
  "$..phone",
  "$..address",
  "$..shipping_address",
  "$..billing_address",
] as const;

// A CR or LF in a header value would let the file smuggle headers into processor requests.
const headerValue = z
  .string()
  .regex(/^[^\u0000-\u0008\u000a-\u001f\u007f]*$/, "a header value cannot hold control characters (CR, LF, NUL)");
const headers = z
  .record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "expected an HTTP header name"), headerValue)
  .default({});
// Redaction runs with script expressions disabled: a filter or script path would fail on every record page.
const redactPath = z
  .string()
  .startsWith("$", "expected a JSONPath starting with $")
  .refine(
    (path) => !/[?(]/.test(path),
    "filter and script expressions ([?(…)], (…)) are not supported in redaction paths: name the fields, e.g. $..card",
  );
const outboundAllowEntry = z
  .string()
  .min(1)
  .refine(
    (entry) => !entry.includes("/") || ipaddr.isValidCIDR(entry),
    "expected a host name, an IP address or a CIDR range such as 10.1.0.0/16",
  );
const httpUrl = z.url({ protocol: /^https?$/, error: "expected an http:// or https:// URL" });

const processorSchema = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("http"), baseUrl: httpUrl, headers, timeout: durationSchema.optional() }),
  z.strictObject({
    type: z.literal("mcp-tool"),
    server: serverNameSchema,
    tool: configuredToolNameSchema,
    timeout: durationSchema.optional(),
  }),
]);

/** The writers' default time bucket: the reference text's 900 s. */
export const DEFAULT_KEY_WINDOW_MS = 900_000;

const toolSchema = z.strictObject({
  stuckAfter: durationSchema.optional(),
  processor: processorSchema.optional(),
  // How the tool's writer buckets its keys, so the console can say when a key stops deduplicating:
  // its time bucket's width (whole seconds, default 15m), or true when it keys calls by a business key.
  window: durationSchema
    .refine((ms) => ms % 1_000 === 0, "expected a whole number of seconds, as the writer's window_s is")
    .optional(),
  businessKey: z.boolean().optional(),
  // Response fields support may search by (label → simple JSONPath), served by `idem db index`'s
  // expression indexes; a redacted path is refused below, where the redact rules are known.
  // (zod reports a bad record key without its message, so labels are checked there too).
  search: z.record(z.string(), searchPath()).optional(),
});

function searchLabelProblem(label: string): string | null {
  if (!SEARCH_LABEL.test(label))
    return `${JSON.stringify(label)}: a search label is a lower-case name: a letter, then letters, digits or _ (at most 31)`;
  if ((RESERVED_SEARCH_LABELS as readonly string[]).includes(label))
    return `${JSON.stringify(label)} is one of the records list's own parameters: choose another label`;
  return null;
}

function searchPath() {
  return z.string().superRefine((path, ctx) => {
    const parsed = parseSearchPath(path);
    if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.message });
  });
}

// A verification (verify-tool, issue #18) makes real side effects: only servers this file marks
// "verify": true (staging) may be verified. Admin-added servers never can.
const verify = z.boolean().default(false);

// stdio servers run a command on the console's host: they come only from this file.
const mcpServerSchema = z.discriminatedUnion("transport", [
  z.strictObject({ name: serverNameSchema, transport: z.literal("http"), url: httpUrl, headers, verify }),
  z.strictObject({
    name: serverNameSchema,
    verify,
    transport: z.literal("stdio"),
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).optional(),
  }),
]);

/** How often each console server rolls the metrics up in the background. */
export const DEFAULT_ROLLUP_EVERY_MS = 15_000;

export const configSchema = z
  .strictObject({
    tools: z.record(configuredToolNameSchema, toolSchema).default({}),
    mcpServers: z.array(mcpServerSchema).default([]),
    redact: z.array(redactPath).default([...DEFAULT_REDACT_PATHS]),
    // Masks by value under any key, on by default: e-mail addresses and card numbers (Luhn).
    redactValues: z
      .strictObject({ email: z.boolean().default(true), cardNumbers: z.boolean().default(true) })
      .default({ email: true, cardNumbers: true }),
    defaultStuckAfter: durationSchema.default(5 * 60_000),
    // The Prometheus scrape (GET /api/v1/metrics/prometheus): the busiest this many tenants get their own
    // label value, the rest fold into tenant="other", so a table with thousands of tenants stays a few series.
    prometheus: z
      .strictObject({ tenantLabels: z.number().int().min(1).max(1000).default(20) })
      .default({ tenantLabels: 20 }),
    // Each console server rolls the metrics up this often in the background, so reads only read
    // (lib/metrics/background-rollup.ts); "off" leaves it to `idem rollup` from cron.
    metrics: z
      .strictObject({ rollupEvery: durationOrOffSchema.default(DEFAULT_ROLLUP_EVERY_MS) })
      .default({ rollupEvery: DEFAULT_ROLLUP_EVERY_MS }),
    // Hosts (names or addresses) and CIDR ranges an admin-added URL may name although private or loopback.
    outbound: z.strictObject({ allow: z.array(outboundAllowEntry).default([]) }).default({ allow: [] }),
    // Time limits on the console's own connections (the CLI, migrations and bench have none): see lib/db/timeouts.ts.
    database: z
      .strictObject({
        connectTimeout: durationSchema.default(DEFAULT_DATABASE_TIMEOUTS.connectTimeout),
        statementTimeout: durationSchema.default(DEFAULT_DATABASE_TIMEOUTS.statementTimeout),
        lockTimeout: durationSchema.default(DEFAULT_DATABASE_TIMEOUTS.lockTimeout),
        exportStatementTimeout: durationSchema.default(DEFAULT_DATABASE_TIMEOUTS.exportStatementTimeout),
        replicaLagWarning: durationSchema.default(DEFAULT_REPLICA_LAG_WARNING_MS),
        parallelWorkers: z.number().int().min(0).max(64).default(DEFAULT_CONSOLE_PARALLEL_WORKERS),
      })
      .default({
        ...DEFAULT_DATABASE_TIMEOUTS,
        replicaLagWarning: DEFAULT_REPLICA_LAG_WARNING_MS,
        parallelWorkers: DEFAULT_CONSOLE_PARALLEL_WORKERS,
      }),
  })
  .superRefine((config, ctx) => {
    const names = new Set<string>();
    config.mcpServers.forEach((server, i) => {
      if (names.has(server.name))
        ctx.addIssue({
          code: "custom",
          path: ["mcpServers", i, "name"],
          message: `duplicate server name ${JSON.stringify(server.name)}`,
        });
      names.add(server.name);
    });
    for (const [tool, settings] of Object.entries(config.tools)) {
      if (settings.businessKey && settings.window !== undefined)
        ctx.addIssue({
          code: "custom",
          path: ["tools", tool, "window"],
          message: "a tool keyed by a business key has no time window: set businessKey or window, not both",
        });
      for (const [label, path] of Object.entries(settings.search ?? {})) {
        const labelProblem = searchLabelProblem(label);
        if (labelProblem !== null) {
          ctx.addIssue({ code: "custom", path: ["tools", tool, "search", label], message: labelProblem });
          continue;
        }
        const parsed = parseSearchPath(path);
        const rule = parsed.ok ? redactingRule(parsed.segments, config.redact) : null;
        if (rule !== null)
          ctx.addIssue({
            code: "custom",
            path: ["tools", tool, "search", label],
            message: `${path} is redacted (redact rule ${rule}): a masked value cannot be searchable`,
          });
      }
      const processor = settings.processor;
      if (processor?.type === "mcp-tool" && !names.has(processor.server)) {
        ctx.addIssue({
          code: "custom",
          path: ["tools", tool, "processor", "server"],
          message: `names no server in mcpServers (got ${JSON.stringify(processor.server)})`,
        });
      }
    }
  });

export type IdemConfig = z.output<typeof configSchema>;
export type ToolConfig = IdemConfig["tools"][string];
export type McpServerConfig = IdemConfig["mcpServers"][number];
