import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { bucketBitsFor, packTrimmedRefs } from "@/lib/retention/trimmed-refs";

const key = () => randomBytes(32).toString("hex");

describe("packing trimmed refs", () => {
  it("splits finer as a tenant's batch grows, to about 64 refs a chunk, never past 256 chunks", () => {
    expect([0, 1, 127, 128, 255, 256, 10_000, 1_000_000].map(bucketBitsFor)).toEqual([0, 0, 0, 1, 1, 2, 7, 8]);
  });

  it("packs each tenant's distinct refs, sorted, each in the chunk of its top bits", () => {
    const rows = [
      ...Array.from({ length: 10_000 }, () => ({ key: key(), tenant: "acme" })),
      ...Array.from({ length: 5 }, () => ({ key: key(), tenant: "globex" })),
      { key: "not-hex-key-written-by-another-writer", tenant: "acme" },
    ];
    rows.push({ ...rows[0]!, key: `${rows[0]!.key.slice(0, 12)}${"0".repeat(52)}` }); // same ref, another key: stored once
    const chunks = packTrimmedRefs(rows);
    const refsOf = (tenant: string) =>
      chunks.filter((c) => c.tenant === tenant).flatMap((c) => c.refsHex.match(/.{12}/g) ?? []);
    expect(refsOf("acme")).toEqual(
      [
        ...new Set(
          rows.filter((r) => r.tenant === "acme" && /^[0-9a-f]{12}/.test(r.key)).map((r) => r.key.slice(0, 12)),
        ),
      ].sort(),
    );
    expect(refsOf("globex")).toHaveLength(5);
    expect(chunks.filter((c) => c.tenant === "globex")).toEqual([
      expect.objectContaining({ bucketBits: 0, bucket: 0 }),
    ]);
    const acme = chunks.filter((c) => c.tenant === "acme");
    expect(acme.every((c) => c.bucketBits === 7)).toBe(true);
    for (const chunk of acme) {
      for (const ref of chunk.refsHex.match(/.{12}/g) ?? [])
        expect(Math.floor(parseInt(ref, 16) / 2 ** 41)).toBe(chunk.bucket);
    }
    // ~78 refs a chunk: the chunk row's overhead is under a byte per ref.
    expect(10_000 / acme.length).toBeGreaterThan(60);
  });
});
