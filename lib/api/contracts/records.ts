import { z } from "zod";
import { BODY_ERRORS, defineContract } from "@/lib/api/contract";
import { API_ROUTES } from "@/lib/api/routes";
import { recordKeyPath } from "@/lib/api/record-key-param";
import { domainQuery, pickFields, strictQuery } from "@/lib/api/strict-query";
import { checkArgumentsInputSchema } from "@/lib/records/check-arguments";
import { revealInputSchema } from "@/lib/records/reveal-response";
import {
  DEFAULT_PAGE_SIZE,
  EXPORT_PARAMS,
  LIST_PARAMS,
  parseRecordsExportQuery,
  parseRecordsQuery,
  RECORDS_QUERY_FIELDS,
  UNRECORDED_TOOL,
} from "@/lib/records/list-filters";
import { EXPLAIN_QUERY_FIELDS } from "@/lib/records/explain-key";
import { MAX_LOOKUP_TEXT_CHARS } from "@/lib/records/lookup-tokens";
import { configuredSearchLabels } from "@/lib/config/search-specs";
import { nextStuckWithinField } from "@/lib/records/stuck-filter-input";
import { resolveInputSchema } from "@/lib/resolve/resolve-record";
import { allowRepeatInputSchema } from "@/lib/resolve/allow-repeat";
import {
  attachmentHeader,
  instant,
  nextStuckClaim,
  nullableString,
  processorCheck,
  recordSummary,
  rowSnapshot,
} from "./shared-schemas";
import { duplicateEntry } from "./duplicates";

const facet = z.looseObject({});

/** What the list's and the export's filter parameters mean, where the name alone does not say. */
const FILTER_DESCRIPTIONS = {
  tenant: "One tenant's records only; still limited to your tenants.",
  tool: `One tool's records (exact name); \`${UNRECORDED_TOOL}\` for writers that record no tool.`,
  status: "The status column as written (in_progress, completed, or a writer's own).",
  stuck: "true: only claims in progress longer than their tool's stuckAfter.",
  from: "Created at or after this instant: a date or a date-time with a zone.",
  to: "Created before this instant: a date or a date-time with a zone.",
  subject:
    "The authenticated caller the writer recorded (the subject column), matched exactly; at most 200 characters, no control characters. Still limited to your tenants.",
  field:
    "A searchable response field and the value it must equal exactly, as `<label>:<value>` (e.g. `receipt:ch_3Mq2x`). Labels are what idem.config.json names per tool (`tools.<tool>.search`), so they differ per console: an unknown label is a 400 naming the configured ones. A value holding an e-mail address or a card number is refused (400, masked values cannot be searched). Records whose writer recorded no tool are never matched.",
};

const PAGING_DESCRIPTIONS = {
  cursor: "A nextCursor or prevCursor this API returned: where the page starts.",
  dir: "next (the default): older records after the cursor; prev: newer ones before it (needs a cursor).",
  limit: `Records per page (default ${DEFAULT_PAGE_SIZE}).`,
};

export const listRecordsContract = defineContract({
  ...API_ROUTES.listRecords,
  tag: "records",
  summary: "One page of records, newest first, with facet counts.",
  action: "records:read",
  query: domainQuery(
    pickFields(RECORDS_QUERY_FIELDS, LIST_PARAMS),
    (params) => parseRecordsQuery(params, { unknownParams: "reject", searchLabels: configuredSearchLabels() }),
    { described: { ...FILTER_DESCRIPTIONS, ...PAGING_DESCRIPTIONS } },
  ),
  responses: {
    200: {
      description: "The page, its filter, the links to its neighbours and the facet counts.",
      schema: z.object({
        filter: z.object({
          tenant: nullableString,
          subject: nullableString,
          tool: nullableString,
          status: nullableString,
          stuck: z.boolean(),
          field: z.object({ label: z.string(), value: z.string() }).nullable(),
          from: instant.nullable(),
          to: instant.nullable(),
        }),
        records: z.array(recordSummary.extend({ stuck: z.boolean(), stuckAfterMs: z.number() })),
        page: z.object({
          limit: z.number().int(),
          dir: z.enum(["next", "prev"]),
          nextCursor: nullableString,
          prevCursor: nullableString,
          links: z.object({ first: z.string(), next: nullableString, prev: nullableString }),
        }),
        facets: z.object({ status: facet, tool: facet }),
        generatedAt: instant,
      }),
    },
  },
  errors: ["unknown_tenant"],
  examples: [
    { name: "a page of 25", query: [["limit", "25"]], status: 200 },
    { name: "a page size it does not have", query: [["limit", "7"]], status: 400 },
    { name: "a tenant nobody has", query: [["tenant", "nobody-has-this"]], status: 404 },
    { name: "one subject's calls", query: [["subject", "user_1"]], status: 200 },
    { name: "a label no tool configures", query: [["field", "nolabel:ch_1"]], status: 400 },
    { name: "an e-mail address searched", query: [["field", "receipt:someone@example.com"]], status: 400 },
    {
      name: "subject twice",
      query: [
        ["subject", "user_1"],
        ["subject", "user_2"],
      ],
      status: 400,
    },
  ],
});

export const exportRecordsContract = defineContract({
  ...API_ROUTES.exportRecords,
  tag: "records",
  summary: "The list's matching records as a streamed, bounded CSV or JSON download.",
  action: "records:export",
  pool: "export",
  query: domainQuery(
    pickFields(RECORDS_QUERY_FIELDS, EXPORT_PARAMS),
    (params) => parseRecordsExportQuery(params, configuredSearchLabels()),
    { described: { ...FILTER_DESCRIPTIONS, format: "The file's format." }, required: ["format"] },
  ),
  responses: {
    200: {
      description: "The file (content-disposition: attachment); x-idem-export-max-rows says the bound.",
      headers: {
        "content-disposition": attachmentHeader,
        "x-idem-export-max-rows": {
          description: "The most rows an export holds: a file of exactly this many rows may have been cut short.",
          schema: z.int().min(1),
          required: true,
        },
        "cache-control": {
          description: "no-store: an export holds records; no cache keeps a copy.",
          schema: z.literal("no-store"),
          required: true,
        },
      },
      schema: z.unknown(),
      contentTypes: ["text/csv"],
    },
  },
  errors: ["unknown_tenant"],
  examples: [
    { name: "as JSON", query: [["format", "json"]], status: 200 },
    { name: "as CSV", query: [["format", "csv"]], status: 200 },
    {
      name: "a cursor",
      query: [
        ["format", "json"],
        ["cursor", "x"],
      ],
      status: 400,
    },
  ],
});

/** The record's answer sentence (lib/records/answer-sentence.ts): what support reads to the customer. */
const recordAnswer = z.object({
  outcome: z
    .enum(["done", "done_again", "refused", "not_done", "unknown", "in_progress", "other"])
    .describe(
      "done: the side effect happened once; done_again: here and under another key too (`duplicates` names them); refused / not_done: it did not happen; unknown / in_progress: not known yet; other: the writer's own status.",
    ),
  sentence: z.string().describe("One plain sentence support can read to the customer, from this reader's masked view."),
  times: z
    .array(z.object({ label: z.string(), at: instant.nullable() }))
    .describe("The times the sentence rests on, each named for what it is; at null: not recorded by this writer."),
  amount: z
    .object({ cents: z.number().int(), currency: nullableString, text: z.string() })
    .nullable()
    .describe("The response's amount_cents; null when the response holds none or it is masked."),
  ids: z.array(z.object({ label: z.string(), value: z.string() })),
});

export const recordDetailContract = defineContract({
  ...API_ROUTES.recordDetail,
  tag: "records",
  summary: "The record, its timeline and audit entries.",
  action: "records:read",
  readOnly: true,
  path_params: recordKeyPath,
  responses: {
    200: {
      description: "The record as its page shows it; the response masked.",
      schema: z.object({
        record: recordSummary,
        answer: recordAnswer,
        amount: z
          .discriminatedUnion("state", [
            z.object({
              state: z.literal("recorded"),
              cents: z.number().int(),
              currency: nullableString,
              text: z.string().describe('"24,000 cents", "24,000 cents USD": the unit its field names.'),
              path: z.string(),
            }),
            z.object({ state: z.literal("masked"), path: z.string() }),
            z.object({ state: z.literal("unreadable"), path: z.string() }),
            z.object({ state: z.literal("not_recorded") }),
          ])
          .describe(
            "The amount the stored response holds ($.amount_cents), whatever the outcome; masked: hidden from this reader; unreadable: not a whole number of cents; not_recorded: the response has none (or none is stored).",
          ),
        argumentsSha256: nullableString.describe(
          "sha256 hex of the call's canonical arguments as the writer recorded it (arguments_sha256); null: this writer does not record it.",
        ),
        protection: z.discriminatedUnion("kind", [
          z.object({
            kind: z.literal("bucket"),
            windowMs: z.number().describe("The writer's time bucket: the tool's `window`, else the reference 900 s."),
            windowSource: z.enum(["config", "default"]),
            bucketStart: instant,
            until: instant.describe("The end of the bucket the claim falls in: an identical call after it runs again."),
            ended: z.boolean(),
          }),
          z.object({
            kind: z.literal("business_key"),
            until: z.null(),
            trimmedAfter: instant.describe("When the nightly trim may delete the row (48 h after the claim)."),
          }),
        ]),
        ageMs: z.number(),
        stuck: z.object({ isStuck: z.boolean(), thresholdMs: z.number(), threshold: z.string(), source: z.string() }),
        response: z.object({
          value: z.unknown(),
          present: z.boolean(),
          redacted: z.boolean(),
          redactedPaths: z.array(z.string()),
        }),
        searchable: z
          .array(z.object({ label: z.string(), path: z.string(), value: nullableString }))
          .describe(
            "The record's searchable response fields (idem.config.json tools.<tool>.search), as the masked response holds them; value null: masked for every role.",
          ),
        repeatCaller: z.looseObject({}),
        timeline: z.array(z.looseObject({})),
        eventCounts: z.record(z.string(), z.number()).nullable(),
        eventsTruncated: z.boolean(),
        audit: z.array(z.looseObject({})),
        duplicates: z
          .array(duplicateEntry)
          .describe(
            "The duplicates the scan found that this claim is part of (it is `first` or `second`; at most 20, oldest second claim first). Empty: none found, or the writer records no arguments hash, or the claim is younger than the scan's reach (GET /api/v1/duplicates says how far it has read).",
          ),
        processor: nullableString,
      }),
    },
  },
  errors: ["bad_key", "ref_not_key", "not_found"],
  examples: [
    { name: "the record", params: { key: "{key}" }, status: 200 },
    { name: "a bare ref", params: { key: "0123456789ab" }, status: 400 },
    { name: "an absent key", params: { key: "f".repeat(64) }, status: 404 },
  ],
});

export const checkRecordContract = defineContract({
  ...API_ROUTES.checkRecord,
  tag: "records",
  summary: "What the processor says happened to this key. Read-only; a POST because it calls another system.",
  action: "records:check-processor",
  path_params: recordKeyPath,
  responses: {
    200: {
      description: "The processor's answer.",
      schema: z.object({
        key: z.string(),
        ref: z.string(),
        tool: nullableString,
        status: z.string(),
        check: processorCheck,
        redactedPaths: z.array(z.string()),
      }),
    },
  },
  errors: ["bad_key", "ref_not_key", "not_found"],
  examples: [
    { name: "ask the processor", params: { key: "{key}" }, status: 200 },
    { name: "an absent key", params: { key: "f".repeat(64) }, status: 404 },
  ],
});

const bucketPosition = z.enum(["previous", "same", "next"]);
const keyScheme = z.enum(["python-json", "jcs"]);
const bucket = z.object({ position: bucketPosition, bucket: z.string(), startsAt: instant, endsAt: instant });
const candidate = bucket.extend({ scheme: keyScheme, key: z.string(), ref: z.string(), matches: z.boolean() });
const byteWindow = z.object({ before: z.string(), from: z.string(), hex: z.string() }).nullable();
const canonicalDiff = z.object({
  equal: z.boolean(),
  leftBytes: z.number().int(),
  rightBytes: z.number().int(),
  offset: z.number().int().nullable(),
  left: byteWindow,
  right: byteWindow,
});

export const checkArgumentsContract = defineContract({
  ...API_ROUTES.checkArguments,
  tag: "records",
  summary: "Do these arguments derive this record's key, in its bucket or a neighbouring one? Read-only.",
  description:
    "The record keeps only its key (sha256 of tenant|subject|tool|canonical|bucket), so the answer is equal or not: each canonical scheme is tried in the bucket created_at falls in and the two beside it. A hash cannot say where inputs differ: `reference.diff` gives the first differing canonical byte only against a `reference` text that itself derives the record's key (`reference.proven`). `verdict: cannot_check` when the writer recorded no tool. A POST because the arguments may hold personal data that must not sit in URLs and logs.",
  action: "records:read",
  path_params: recordKeyPath,
  body: checkArgumentsInputSchema,
  responses: {
    200: {
      description: "The verdict, the keys tried, the canonical forms, and any other record these arguments derive.",
      schema: z.object({
        key: z.string(),
        ref: z.string(),
        record: z.object({ tenant: z.string(), subject: nullableString, tool: nullableString, createdAt: instant }),
        comparison: z.union([
          z.object({
            verdict: z.enum(["match", "no_match"]),
            windowSeconds: z.number().int(),
            buckets: z.array(bucket),
            candidates: z.array(candidate),
            match: candidate.nullable(),
            canonical: z.array(z.object({ scheme: keyScheme, text: z.string(), bytes: z.number().int() })),
            reference: z
              .union([
                z.object({ proven: z.literal(true), scheme: keyScheme, position: bucketPosition, diff: canonicalDiff }),
                z.object({ proven: z.literal(false) }),
              ])
              .nullable(),
          }),
          z.object({ verdict: z.literal("cannot_check"), reason: z.string() }),
        ]),
        otherRecords: z.array(recordSummary.extend({ scheme: keyScheme, position: bucketPosition })),
      }),
    },
  },
  errors: [...BODY_ERRORS, "bad_key", "ref_not_key", "not_found"],
  examples: [
    { name: "arguments that are not this call's", params: { key: "{key}" }, body: { args: "{}" }, status: 200 },
    { name: "arguments that are not JSON", params: { key: "{key}" }, body: { args: "{amount: 1" }, status: 400 },
    { name: "an absent key", params: { key: "f".repeat(64) }, body: { args: "{}" }, status: 404 },
  ],
});

export const resolveRecordContract = defineContract({
  ...API_ROUTES.resolveRecord,
  tag: "records",
  summary: "Complete or release one stuck claim, on the processor's answer (asked by the console itself).",
  description:
    '409 conflict carries `current` when the row changed since `expectedUpdatedAt` (nothing overwritten); 409 outcome_unknown and 422 outcome_mismatch carry `check`. Releasing without "not taken" evidence needs an admin and `force` with `confirm`.',
  action: "records:resolve",
  path_params: recordKeyPath,
  body: resolveInputSchema.extend({ nextStuckWithin: nextStuckWithinField }),
  responses: {
    200: {
      description: "Resolved, with its audit row.",
      schema: z.object({
        action: z.enum(["complete", "release"]),
        forced: z.boolean(),
        before: rowSnapshot,
        after: rowSnapshot.nullable(),
        check: processorCheck,
        auditId: z.string(),
        nextStuck: nextStuckClaim,
      }),
    },
  },
  errors: [...BODY_ERRORS, "bad_key", "ref_not_key", "not_found", "conflict", "outcome_unknown", "outcome_mismatch"],
  examples: [
    {
      name: "complete a taken claim",
      params: { key: "{key}" },
      body: { action: "complete", reason: "contract test", expectedUpdatedAt: null },
      status: 200,
    },
    {
      name: "resolve it again",
      params: { key: "{key}" },
      body: { action: "complete", reason: "contract test", expectedUpdatedAt: null },
      status: 409,
    },
    {
      name: "an unknown action",
      params: { key: "{key}" },
      body: { action: "undo", reason: "contract test", expectedUpdatedAt: null },
      status: 400,
    },
  ],
});

export const allowRepeatContract = defineContract({
  ...API_ROUTES.allowRepeat,
  tag: "records",
  summary: "End a completed record's deduplication: the next identical call runs (and charges) again.",
  description:
    "Deletes the completed row, its snapshot kept in the audit log as record.allow_repeat (as a release does), so a customer can make the same purchase twice on purpose. A compare-and-set on `expectedUpdatedAt`, the version the operator saw: 409 conflict carries `current` when the row changed; 409 not_completed when the record is not completed (a stuck claim is resolved instead).",
  action: "records:allow-repeat",
  path_params: recordKeyPath,
  body: allowRepeatInputSchema,
  responses: {
    200: {
      description: "Deleted, with its audit row.",
      schema: z.object({ before: rowSnapshot, auditId: z.string() }),
    },
  },
  errors: [...BODY_ERRORS, "bad_key", "ref_not_key", "not_found", "not_completed", "conflict"],
  examples: [
    {
      name: "a version it no longer has",
      params: { key: "{key}" },
      body: { reason: "contract test", expectedUpdatedAt: "2000-01-01T00:00:00.000000Z" },
      status: 409,
    },
    {
      name: "allow a repeat",
      params: { key: "{key}" },
      body: { reason: "contract test", expectedUpdatedAt: "{version}" },
      status: 200,
    },
    {
      name: "no reason",
      params: { key: "{key}" },
      body: { expectedUpdatedAt: null },
      status: 400,
    },
  ],
});

export const revealRecordContract = defineContract({
  ...API_ROUTES.revealRecord,
  tag: "records",
  summary: "The stored response unmasked, with a reason, written to the audit log as record.reveal.",
  action: "records:reveal",
  path_params: recordKeyPath,
  body: revealInputSchema,
  responses: {
    200: {
      description: "The unmasked response.",
      schema: z.object({
        key: z.string(),
        ref: z.string(),
        response: z.unknown(),
        revealedPaths: z.array(z.string()),
        auditId: z.string(),
      }),
    },
  },
  errors: [...BODY_ERRORS, "bad_key", "ref_not_key", "not_found"],
  examples: [
    { name: "reveal with a reason", params: { key: "{key}" }, body: { reason: "contract test" }, status: 200 },
    { name: "no reason", params: { key: "{key}" }, body: {}, status: 400 },
  ],
});

export const lookupContract = defineContract({
  ...API_ROUTES.lookup,
  tag: "records",
  summary: "The records that the refs and keys in a pasted text name, within your tenants.",
  action: "records:lookup",
  readOnly: true,
  query: strictQuery(
    {
      q: z
        .string()
        .meta({ maxLength: MAX_LOOKUP_TEXT_CHARS })
        .describe(
          "The text to search: an error message or a whole ticket, with refs, keys or searchable ids (at most 50).",
        ),
    },
    {
      hint: "the lookup takes q",
      required: { q: "required — the text to search for refs (an error message, a ref or a key)" },
    },
  ),
  responses: {
    200: {
      description: "What matched, and for what did not, any trace left in events or the audit log.",
      schema: z.object({
        answers: z
          .array(
            z.object({
              token: z.string().describe("The ref, key or id as the text held it."),
              kind: z.enum(["key", "ref", "field"]),
              outcome: z
                .enum(["found", "several", "gone", "unknown"])
                .describe("gone: released or trimmed (trace says which); several: a ref two keys share."),
              matches: z.array(recordSummary),
              fields: z
                .array(z.object({ label: z.string(), tool: z.string() }))
                .describe("For kind field: the searchable field each match was found under."),
              moreMatches: z.boolean(),
              trace: z.looseObject({ ref: z.string(), fate: z.string() }).nullable(),
            }),
          )
          .describe("Each ref, key and searchable id in the text, in the order it appears."),
        unmatchedIds: z.array(z.string()).describe("Id-like words looked up among the searchable fields, not found."),
        totalTokens: z.int().describe("Distinct refs, keys and ids the text held; at most limit were looked up."),
        limit: z.int(),
        notSearched: z
          .object({ emails: z.int(), cardNumbers: z.int() })
          .describe("Values never looked up because the pages mask them."),
        keys: z.array(z.string()),
        refs: z.array(z.string()),
        truncated: z.boolean(),
        matches: z.array(recordSummary),
        moreMatches: z.boolean(),
        misses: z.array(z.looseObject({ ref: z.string() })),
        whyMissing: z.array(z.string()),
        unseen: z
          .object({
            refs: z.array(z.string()),
            traces: z.array(z.string()).describe("What events or the audit log still hold of these refs."),
            days: z.int().describe("How far back releases and trims are remembered."),
            inYourTenants: z.boolean(),
            possibilities: z.array(z.string()),
          })
          .nullable()
          .describe(
            "When nothing matched: the refs no row, release or trim accounts for, and why they may be missing (whyMissing holds the same as sentences).",
          ),
      }),
    },
  },
  errors: ["text_too_long", "no_ref"],
  examples: [
    { name: "a pasted key", query: [["q", "failed: {key}"]], status: 200 },
    { name: "no ref in the text", query: [["q", "my card was charged twice"]], status: 400 },
    {
      name: "q twice",
      query: [
        ["q", "a"],
        ["q", "b"],
      ],
      status: 400,
    },
  ],
});

const EXPLAIN_PARAMS = Object.keys(EXPLAIN_QUERY_FIELDS);

export const explainKeyContract = defineContract({
  ...API_ROUTES.explainKey,
  tag: "keys",
  summary:
    "How a key is derived: canonical form, material, bucket, key and ref; the neighbouring buckets' records (your tenants only).",
  action: "keys:explain",
  // Strict here about names only: the handler reads the values (parseExplainParams), each refusal in one answer.
  query: domainQuery(
    EXPLAIN_QUERY_FIELDS,
    strictQuery(Object.fromEntries(EXPLAIN_PARAMS.map((name) => [name, z.string()])), {
      hint: `the explainer takes ${EXPLAIN_PARAMS.join(", ")}`,
    }).parse,
    { required: ["tenant", "tool", "args"] },
  ),
  responses: {
    200: {
      description: "The explanation.",
      schema: z.object({
        input: z.looseObject({ tenant: z.string(), tool: z.string(), at: instant }),
        derived: z.looseObject({ key: z.string(), ref: z.string() }),
        buckets: z.array(z.looseObject({})),
        comparison: z.looseObject({}).nullable(),
        recordsError: z.object({ code: z.literal("unknown_tenant"), message: z.string() }).nullable(),
      }),
    },
  },
  errors: [],
  examples: [
    {
      name: "a charge",
      query: [
        ["tenant", "acme"],
        ["tool", "charge_card"],
        ["args", '{"amount_cents":100}'],
        ["at", "2026-01-01T00:00:00Z"],
      ],
      status: 200,
    },
    {
      name: "args not JSON",
      query: [
        ["tenant", "acme"],
        ["tool", "charge_card"],
        ["args", "{"],
      ],
      status: 400,
    },
  ],
});
