import { describe, expect, it } from "vitest";
import { waitToLeaveBucketEdge } from "../helpers/mid-bucket-clock";

// The wait before a call whose repeat must derive the same key on a writer's wall clock (guard-tarball,
// verify-tool): CI's failing pair began 1.1 s before a 15-minute bucket's end.
describe("waitToLeaveBucketEdge", () => {
  const at = (iso: string) => Date.parse(iso);

  it("waits past an edge closer than the margin, by what is left and a second", () => {
    expect(waitToLeaveBucketEdge(at("2026-12-06T14:44:58.857Z"))).toBe(2_143);
    expect(waitToLeaveBucketEdge(at("2026-12-06T14:44:31.000Z"))).toBe(30_000);
  });

  it("does not wait when the margin fits in the bucket, from its first instant", () => {
    expect(waitToLeaveBucketEdge(at("2026-12-06T14:44:30.000Z"))).toBe(0);
    expect(waitToLeaveBucketEdge(at("2026-12-06T14:45:00.000Z"))).toBe(0);
    expect(waitToLeaveBucketEdge(at("2026-12-06T14:40:00.000Z"), 60_000)).toBe(0);
  });
});
