import { describe, expect, it } from "vitest";
import { jsonAnswer, UNCOMPRESSED_BELOW_BYTES } from "@/lib/api/json-answer";

describe("a JSON answer", () => {
  it("marks an answer below the bound no-transform (Next leaves it uncompressed), a larger one not", async () => {
    // {"a":"…"} is 8 bytes around the string.
    const justBelow = { a: "x".repeat(UNCOMPRESSED_BELOW_BYTES - 9) };
    const small = jsonAnswer(justBelow, 200);
    expect(small.headers.get("cache-control")).toBe("no-store, no-transform");
    expect(small.headers.get("content-type")).toBe("application/json");
    expect(await small.json()).toEqual(justBelow);

    const large = jsonAnswer({ a: "x".repeat(UNCOMPRESSED_BELOW_BYTES - 8) }, 404);
    expect(large.status).toBe(404);
    expect(large.headers.get("cache-control")).toBe("no-store");
  });

  it("counts bytes, not characters", () => {
    const chars = Math.ceil(UNCOMPRESSED_BELOW_BYTES / 3);
    expect(jsonAnswer({ a: "€".repeat(chars) }, 200).headers.get("cache-control")).toBe("no-store");
  });
});
