import { API_ROUTES } from "./routes";

/**
 * When a request's Accept-Encoding takes gzip (the gzip token, with no `q=0`). Written as the value
 * of a next.config `has` condition, which Next matches as `^…$`: the header rule in next.config.ts and
 * the answer (lib/api/self-gzip.ts) read this one pattern, so the label and the body never disagree.
 */
export const ACCEPTS_GZIP_PATTERN =
  "(?:.*,)?\\s*gzip\\s*(?:;\\s*q\\s*=\\s*(?:1(?:\\.0{0,3})?|0?\\.(?!0{1,3}\\s*(?:,|$))\\d{1,3}))?\\s*(?:,.*)?";

const ACCEPTS_GZIP = new RegExp(`^${ACCEPTS_GZIP_PATTERN}$`);

/** Whether an Accept-Encoding header takes gzip, as the next.config rule decides it. */
export function acceptsGzip(acceptEncoding: string | null): boolean {
  return acceptEncoding !== null && ACCEPTS_GZIP.test(acceptEncoding);
}

/**
 * The API paths whose answers the console gzips itself, at zlib's fastest level, instead of Next at
 * level 6: the export, 37 MB of CSV a file, where level 6 cost twice the CPU for 4 % fewer bytes.
 */
export const SELF_GZIPPED_PATHS: ReadonlySet<string> = new Set([API_ROUTES.exportRecords.path]);

/**
 * next.config.ts's header rules for those paths. Next drops a route's own Content-Encoding (it could
 * be a decoded fetch's) but keeps one its config set, and its compression then leaves the body alone
 * (docs/bench.md, "the export's own gzip").
 */
export function gzipLabelRules() {
  return [...SELF_GZIPPED_PATHS].map((source) => ({
    source,
    has: [{ type: "header" as const, key: "accept-encoding", value: ACCEPTS_GZIP_PATTERN }],
    headers: [{ key: "Content-Encoding", value: "gzip" }],
  }));
}
