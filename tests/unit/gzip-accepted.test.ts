import { describe, expect, it } from "vitest";
import nextConfig from "../../next.config";
import { ACCEPTS_GZIP_PATTERN, acceptsGzip, SELF_GZIPPED_PATHS } from "@/lib/api/gzip-accepted";
import { API_ROUTES } from "@/lib/api/routes";

// The export's gzip label (next.config.ts) and its body (lib/api/self-gzip.ts) decide from one pattern.
describe("acceptsGzip", () => {
  it.each([
    ["gzip", true],
    ["gzip, deflate, br", true],
    ["deflate, gzip, br, zstd", true],
    ["br, gzip", true],
    ["deflate, gzip;q=1.0, *;q=0.5", true],
    ["br;q=1, gzip ;q=0.8", true],
    ["gzip;q=0.001", true],
    ["gzip;q=0", false],
    ["gzip;q=0.0", false],
    ["gzip;q=0.000", false],
    ["gzip;q=0, br", false],
    ["identity", false],
    ["br", false],
    ["x-gzip", false],
    ["gzipped", false],
    ["*", false], // Next's own compression answers a wildcard, at its own level
    ["", false],
  ])("%j takes gzip: %s", (header, takes) => {
    expect(acceptsGzip(header)).toBe(takes);
  });

  it("is no header at all: false", () => expect(acceptsGzip(null)).toBe(false));

  it("is next.config's header rule for each self-gzipped path, matched as Next matches it", async () => {
    expect([...SELF_GZIPPED_PATHS]).toEqual([API_ROUTES.exportRecords.path]);
    const rules = (await nextConfig.headers!()).filter((rule) => SELF_GZIPPED_PATHS.has(rule.source));
    expect(rules).toEqual(
      [...SELF_GZIPPED_PATHS].map((source) => ({
        source,
        has: [{ type: "header", key: "accept-encoding", value: ACCEPTS_GZIP_PATTERN }],
        headers: [{ key: "Content-Encoding", value: "gzip" }],
      })),
    );
    // Next compiles a `has` value as ^…$ and turns named groups into route params: there must be none.
    expect(new RegExp(`^${ACCEPTS_GZIP_PATTERN}$`).exec("gzip")?.groups).toBeUndefined();
  });
});
