import { z } from "zod";
import { BODY_ERRORS, defineContract } from "@/lib/api/contract";
import { API_ROUTES } from "@/lib/api/routes";
import { strictQuery } from "@/lib/api/strict-query";
import { reviewInputSchema } from "@/lib/annotations/annotation-reviews";
import { addServerSchema } from "@/lib/annotations/server-store";
import { SERVER_NAME_PATTERN } from "@/lib/field-rules/names";
import { AUDIT_EXPORT_FORMATS, AUDIT_WINDOWS } from "@/lib/annotations/tool-audit-types";
import { VERIFICATION_STEPS, VERIFICATION_VERDICTS } from "@/lib/annotations/tool-verification-types";
import { verificationInputSchema } from "@/lib/annotations/verify-tool/verification-input";
import { REPEAT_DELAY_BAND_NAMES } from "@/lib/repeats/repeat-delay-band";
import { attachmentHeader, instant } from "./shared-schemas";

const repeatMedian = z
  .object({ fromS: z.number(), toS: z.number().nullable() })
  .nullable()
  .describe("The delay range (seconds, a histogram bucket) holding the median repeat; toS null: beyond the last edge.");

// The handlers read these values themselves (their own codes: bad_window, bad_format, bad_server);
// the enums and patterns shown are the constants they check against.
const windowParam = z
  .string()
  .meta({ enum: Object.keys(AUDIT_WINDOWS) })
  .describe("24h (the default), 48h or 7d.");

const toolsAudit = z.object({
  window: z.enum(["24h", "48h", "7d"]),
  generatedAt: instant,
  since: instant.describe(
    "The window's start: now − window floored to its UTC hour, so the window [since, generatedAt) spans the named length to it + 1 h.",
  ),
  scannedThrough: instant
    .nullable()
    .describe(
      "How far the duplicate scan has read: each tool's duplicatesThrough, argumentsMismatches and repeatDelays count events and claims before it. Null: it never ran.",
    ),
  servers: z.array(
    z.looseObject({
      name: z.string(),
      verifiable: z.boolean().describe('idem.config.json marks it "verify": true: an admin may verify its tools.'),
    }),
  ),
  tools: z.array(
    z.looseObject({
      server: z.string().nullable().describe("null: a tool the table records that no listed server declares."),
      name: z.string(),
      verdict: z
        .string()
        .describe(
          "claim_verified_by_test when a passing double-call test on the current listing backs the claim; claim_refuted_by_test when one failed.",
        ),
      evidence: z
        .looseObject({
          duplicatesThrough: z
            .number()
            .int()
            .nullable()
            .describe(
              "Duplicates that got through in the window (one operation executed under two keys); null: its writer records no arguments hash.",
            ),
          argumentsMismatches: z
            .number()
            .int()
            .nullable()
            .describe("Calls refused for other arguments under a reused key; null like duplicatesThrough."),
          repeatDelays: z
            .object({
              repeats: z.number().int(),
              bands: z
                .object(Object.fromEntries(REPEAT_DELAY_BAND_NAMES.map((band) => [band, z.number().int()])))
                .describe(
                  "Repeats per delay band after the first call (docs/architecture.md#where-repeats-come-from).",
                ),
              median: repeatMedian,
              byClient: z.array(
                z.object({
                  client: z.string().nullable().describe("The calling host; null: not recorded."),
                  repeats: z.number().int(),
                  median: repeatMedian,
                }),
              ),
            })
            .nullable()
            .describe(
              "The window's recorded repeats by delay; null: none recorded (a writer that records no events shows none).",
            ),
        })
        .describe("What the table shows for the tool over the window; more figures than listed here."),
      // The run's whole shape is the verification route's answer (toolVerificationSchema below); the
      // audit names what a reader of it relies on and leaves the evidence open.
      verification: z
        .looseObject({
          id: z.string(),
          verdict: z.enum(VERIFICATION_VERDICTS),
          step: z.enum(VERIFICATION_STEPS).nullable(),
          summary: z.string(),
          finishedAt: instant,
          verifiedBy: z.string(),
          stale: z
            .boolean()
            .describe("The tool's entry in its server's latest listing hashes differently from the one the run saw."),
          evidence: z.looseObject({}),
        })
        .nullable()
        .describe(
          "The tool's latest double-call test (verify-tool), or null. For an actor limited to tenants, the run's rows, refs and answer texts are withheld.",
        ),
      inputSchema: z
        .looseObject({})
        .nullable()
        .describe("The tool's input schema as its server's latest listing sent it; null when none was sent."),
    }),
  ),
  summary: z.array(z.looseObject({})),
});

export const toolsAuditContract = defineContract({
  ...API_ROUTES.toolsAudit,
  tag: "tools",
  summary:
    "The annotation audit: each tool's declared and effective annotations beside the table's evidence, and a verdict. Reads stored snapshots only.",
  action: "tools:read",
  query: strictQuery({ window: windowParam }, { hint: "the tools audit takes window" }),
  responses: { 200: { description: "The audit.", schema: toolsAudit } },
  errors: ["bad_window"],
  examples: [
    { name: "the last day", query: [["window", "24h"]], status: 200 },
    { name: "a window it does not have", query: [["window", "1y"]], status: 400 },
  ],
});

export const toolsAuditExportContract = defineContract({
  ...API_ROUTES.toolsAuditExport,
  tag: "tools",
  summary: "The annotation audit as a file for a code review: Markdown (the default) or JSON.",
  action: "tools:read",
  query: strictQuery(
    {
      format: z.string().meta({ enum: AUDIT_EXPORT_FORMATS }).describe("md (the default) or json."),
      window: windowParam,
    },
    { hint: "the export takes format, window" },
  ),
  responses: {
    200: {
      description: "The file (content-disposition: attachment); with format=json, the audit as JSON.",
      headers: { "content-disposition": attachmentHeader },
      schema: toolsAudit,
      contentTypes: ["text/markdown"],
    },
  },
  errors: ["bad_format", "bad_window"],
  examples: [
    { name: "as JSON", query: [["format", "json"]], status: 200 },
    {
      name: "as Markdown",
      query: [
        ["format", "md"],
        ["window", "7d"],
      ],
      status: 200,
    },
    { name: "as PDF", query: [["format", "pdf"]], status: 400 },
  ],
});

export const toolsRefreshContract = defineContract({
  ...API_ROUTES.toolsRefresh,
  tag: "tools",
  summary:
    "Lists every configured and added server now and stores each answer (or failure) as a snapshot; one audit row.",
  action: "tools:refresh",
  responses: {
    200: {
      description: "Each server's listing: its page and tool counts, or why it failed.",
      schema: z.object({
        auditId: z.string(),
        listings: z.array(
          z.union([
            z.object({ server: z.string(), ok: z.literal(true), pages: z.number(), tools: z.number() }),
            z.object({ server: z.string(), ok: z.literal(false), reason: z.string() }),
          ]),
        ),
      }),
    },
  },
  errors: [],
  examples: [{ name: "refresh", status: 200 }],
});

export const toolsReviewContract = defineContract({
  ...API_ROUTES.toolsReview,
  tag: "tools",
  summary: "Records that a tool is naturally idempotent (repeating it has no further effect), with a reason; audited.",
  action: "annotations:review",
  body: reviewInputSchema,
  responses: { 201: { description: "Recorded.", schema: z.object({ reviewId: z.string(), auditId: z.string() }) } },
  errors: [...BODY_ERRORS],
  examples: [
    {
      name: "a review",
      body: { server: "contract-shop", tool: "set_flag", reason: "it sets a value; repeating it changes nothing" },
      status: 201,
    },
    { name: "a short reason", body: { server: "contract-shop", tool: "set_flag", reason: "short" }, status: 400 },
  ],
});

export const toolsAddServerContract = defineContract({
  ...API_ROUTES.toolsAddServer,
  tag: "tools",
  summary:
    "Adds an HTTP MCP server (stdio servers come only from the config file). The answer names headers, never their values.",
  action: "tools:configure",
  body: addServerSchema,
  responses: { 201: { description: "Added.", schema: z.object({ server: z.looseObject({ name: z.string() }) }) } },
  errors: [...BODY_ERRORS, "name_taken", "outbound_refused"],
  examples: [
    { name: "an HTTP server", body: { name: "contract-http", url: "http://127.0.0.1:9/mcp" }, status: 201 },
    { name: "the same name again", body: { name: "contract-http", url: "http://127.0.0.1:9/mcp" }, status: 409 },
    { name: "a stdio server", body: { name: "contract-stdio", transport: "stdio", command: "sh" }, status: 400 },
  ],
});

export const toolsUploadContract = defineContract({
  ...API_ROUTES.toolsUpload,
  tag: "tools",
  summary: "Stores an uploaded tools/list result (or its JSON-RPC response) as the named server's snapshot.",
  action: "tools:configure",
  query: strictQuery(
    {
      server: z
        .string()
        .meta({ pattern: SERVER_NAME_PATTERN.source })
        .describe("The server this listing belongs to (letters, digits, _ . : -)."),
    },
    { hint: "the upload takes server" },
  ),
  rawBody: {
    description: "The tools/list result, or the JSON-RPC response that carries it (at most 2 MiB).",
    schema: z.looseObject({}),
  },
  responses: {
    201: {
      description: "Stored.",
      schema: z.object({ snapshotId: z.string(), auditId: z.string(), tools: z.number() }),
    },
  },
  errors: ["bad_server", "bad_listing", "too_large"],
  examples: [
    {
      name: "a listing",
      query: [["server", "contract-upload"]],
      rawBody: '{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}',
      status: 201,
    },
    { name: "no server", rawBody: "{}", status: 400 },
    { name: "not a listing", query: [["server", "contract-upload"]], rawBody: '{"tools":"x"}', status: 400 },
  ],
});

const check = z.object({
  step: z.enum(VERIFICATION_STEPS),
  result: z.enum(["passed", "failed", "inconclusive", "skipped"]),
  detail: z.string(),
});

export const toolVerificationSchema = z.object({
  id: z.string(),
  server: z.string(),
  tool: z.string(),
  verdict: z.enum(VERIFICATION_VERDICTS),
  step: z
    .enum(VERIFICATION_STEPS)
    .nullable()
    .describe("failed: the first side that failed; inconclusive: the side not exercised."),
  summary: z.string().describe('One sentence of what was seen, e.g. "the upstream created 2 shipments …".'),
  concurrency: z.number().int(),
  argumentsHash: z.string().describe("sha256 hex of the arguments' canonical JSON (the arguments are not kept)."),
  listingHash: z
    .string()
    .describe("sha256 of the tool's listing entry the run saw; a different current entry makes the run stale."),
  snapshotId: z.string().nullable(),
  startedAt: instant,
  finishedAt: instant,
  verifiedBy: z.string(),
  evidence: z.object({
    calls: z.array(
      z.looseObject({
        phase: z.enum(["concurrent", "sequential"]),
        outcome: z.enum(["executed", "in_flight", "replayed", "error"]),
        ref: z.string().nullable(),
      }),
    ),
    checks: z.array(check),
    rows: z.array(
      z.object({
        key: z.string(),
        status: z.string(),
        createdAt: instant,
        tool: z.string().nullable().optional().describe("The tool column as written; null: the writer records none."),
      }),
    ),
    earlierRow: z
      .looseObject({
        key: z.string(),
        status: z.string(),
        createdAt: instant,
        keyHoldsUntil: instant.nullable(),
      })
      .nullable()
      .optional()
      .describe(
        "The row, written before the run began, that answered every call (the same arguments in the same bucket, or a business key that exists): the run tested nothing and is inconclusive. keyHoldsUntil: when the same arguments derive a new key (null: a business key).",
      ),
    upstream: z.looseObject({}).nullable(),
    hint: z.string().nullable(),
  }),
});

export const toolsVerifyContract = defineContract({
  ...API_ROUTES.toolsVerify,
  tag: "tools",
  summary:
    'The double-call test against one tool of a server idem.config.json marks "verify": true: concurrent calls with the same arguments, one sequential repeat, then the answers, the table and the upstream read; the verdict and its evidence are stored and audited. Real side effects: admins only.',
  description:
    "A failed or inconclusive verdict is a finding, answered 200 like a verified one. Refused before any call: a server not in the file or not marked verify, a tool the server does not list, arguments that are not a JSON object, concurrency outside 2..8.",
  action: "tools:verify",
  body: verificationInputSchema,
  responses: {
    200: {
      description: "The stored run, whatever its verdict.",
      schema: z.object({
        verification: toolVerificationSchema,
        auditId: z.string().describe("The run's tool.verify audit entry (/audit?id=…)."),
      }),
    },
  },
  errors: [...BODY_ERRORS, "bad_server", "not_verifiable", "unknown_tool"],
  examples: [
    {
      name: "a verification",
      body: { server: "contract-verify", tool: "charge_card", arguments: { card: "c_4242", amount_cents: 250 } },
      status: 200,
    },
    {
      name: "a server not in the file",
      body: { server: "contract-nowhere", tool: "charge_card", arguments: {} },
      status: 400,
    },
    {
      name: "arguments that are not an object",
      body: { server: "contract-verify", tool: "charge_card", arguments: [1, 2] },
      status: 400,
    },
    {
      name: "a server not marked verify",
      body: { server: "contract-unmarked", tool: "charge_card", arguments: {} },
      status: 422,
    },
  ],
});
