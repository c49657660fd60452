import { z } from "zod";
import { defineContract, type QuerySpec } from "@/lib/api/contract";
import { API_ROUTES } from "@/lib/api/routes";
import {
  DEFAULT_DUPLICATES_LIMIT,
  DUPLICATES_CURSOR_PATTERN,
  DUPLICATES_WINDOWS,
  MAX_DUPLICATES_LIMIT,
  parseDuplicatesQuery,
  type DuplicatesQuery,
  type DuplicatesWindow,
} from "@/lib/duplicates/duplicates-params";
import type { MetricsWindow } from "@/lib/metrics/metrics-params";
import { instant, nullableString } from "./shared-schemas";

/** The duplicates' windows are the metrics' windows: this stops compiling if the two lists part. */
type SameWindows = [MetricsWindow] extends [DuplicatesWindow]
  ? [DuplicatesWindow] extends [MetricsWindow]
    ? true
    : false
  : false;
export const DUPLICATES_WINDOWS_ARE_THE_METRICS_WINDOWS: SameWindows = true;

/** The query as the document shows it (typed); parsed strictly by the page's own parser. */
const duplicatesQuery: QuerySpec<DuplicatesQuery> = {
  params: z.object({
    window: z
      .enum(DUPLICATES_WINDOWS)
      .optional()
      .describe("How far back the second claims go: 1h, 24h (the default) or 48h, ending now."),
    tool: z.string().max(200).optional().describe("One tool's duplicates only (exact name)."),
    tenant: z.string().max(200).optional().describe("One tenant's duplicates only; still limited to your tenants."),
    limit: z
      .int()
      .min(1)
      .max(MAX_DUPLICATES_LIMIT)
      .optional()
      .describe(`Entries per page, 1 to ${MAX_DUPLICATES_LIMIT} (default ${DEFAULT_DUPLICATES_LIMIT}).`),
    cursor: z
      .string()
      .regex(DUPLICATES_CURSOR_PATTERN)
      .optional()
      .describe("The previous page's nextCursor (`<ISO instant>~<key>`): the page after it."),
  }),
  parse: (params) => parseDuplicatesQuery(params, { unknownParams: "reject" }),
};

const claim = z.object({ key: z.string(), ref: z.string(), createdAt: instant });

/** One operation executed twice: the duplicates list's entries, and a record's own duplicates in its detail. */
export const duplicateEntry = z.object({
  tenant: z.string(),
  subject: nullableString,
  tool: z.string(),
  argumentsSha256: z.string(),
  first: claim,
  second: claim,
  gapMs: z.number().describe("second.createdAt − first.createdAt."),
  windowSeconds: z.number().int().describe("The tool's time bucket."),
  bucketEdge: instant
    .nullable()
    .describe(
      "The start of the second claim's bucket when the first lies in an earlier one; null: the same bucket (the keys differ for another reason).",
    ),
  fix: z.string().describe("What to change so the operation cannot run twice."),
});

export const duplicatesContract = defineContract({
  ...API_ROUTES.duplicates,
  tag: "records",
  summary:
    "Duplicates that got through: one operation (tenant, subject, tool, arguments) executed under two keys less than its window apart, newest first.",
  description:
    "Read from the duplicate scan (every console server's background round and `idem rollup`), which reads claims " +
    "once they are five minutes old: `scannedThrough` says how far it has read, and younger claims are not counted yet. " +
    "Only writers that record arguments_sha256 (idem-guard, both languages) can be scanned; a tool whose `duplicates` is null " +
    "(or that is absent from `byTool`) records no arguments hash: not recorded, never 0. Tools keyed by a business key are not scanned.",
  action: "records:read",
  query: duplicatesQuery,
  responses: {
    200: {
      description: "The window's per-tool counts and one page of its duplicates.",
      schema: z.object({
        window: z.enum(DUPLICATES_WINDOWS),
        since: instant.describe("The window's start: until − window."),
        until: instant.describe("The request's instant."),
        scannedThrough: instant
          .nullable()
          .describe("Claims created before this are counted; younger ones are not scanned yet. Null: never scanned."),
        byTool: z.array(
          z.object({
            tool: z.string(),
            duplicates: z
              .number()
              .int()
              .nullable()
              .describe("Second claims in the window; null: the tool's writer records no arguments hash."),
            hashedClaims: z.number().int().describe("Scanned claims with an arguments hash, by whole hours."),
            argumentsMismatches: z
              .number()
              .int()
              .nullable()
              .describe(
                "Calls refused because their key held a row recorded with other arguments (arguments_mismatch events), by whole hours; null like duplicates.",
              ),
            businessKey: z
              .boolean()
              .describe(
                "idem.config.json keys the tool by a business key: it is never paired (two keys, two operations).",
              ),
          }),
        ),
        entries: z.array(duplicateEntry),
        nextCursor: nullableString,
        mismatches: z
          .array(
            z.object({
              key: z.string(),
              ref: z.string(),
              tenant: z.string(),
              tool: nullableString,
              at: instant.describe("When the writer refused the call."),
              client: nullableString.describe("The calling host (name version); null: not recorded."),
              storedSha256: nullableString.describe("The arguments hash of the row under the key."),
              callSha256: nullableString.describe("The refused call's arguments hash."),
            }),
          )
          .describe(
            "The window's newest calls refused for other arguments under a reused key (a business key reused for another operation), at most 20, newest first; not paged by cursor.",
          ),
      }),
    },
  },
  errors: ["unknown_tenant"],
  examples: [
    { name: "the last day", query: [["window", "24h"]], status: 200 },
    {
      name: "one tool, a page of 10",
      query: [
        ["tool", "charge_card"],
        ["limit", "10"],
      ],
      status: 200,
    },
    { name: "a window it does not have", query: [["window", "2h"]], status: 400 },
    { name: "a cursor it did not issue", query: [["cursor", "yesterday"]], status: 400 },
    { name: "a tenant nobody has", query: [["tenant", "nobody-has-this"]], status: 404 },
  ],
});
