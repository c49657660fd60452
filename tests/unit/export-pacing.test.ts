import { describe, expect, it } from "vitest";
import { createExportPacer, EXPORT_MAX_PAUSE_MS } from "@/lib/records/export-pacing";

describe("the export's pacing", () => {
  it("goes straight on when nobody else is busy", async () => {
    const pacer = createExportPacer(() => false);
    expect(await pacer.afterBatch(30)).toBe(0);
  });

  it("pauses as long as the batch worked while others are busy, never longer than the cap", async () => {
    const pacer = createExportPacer(() => true);
    expect(await pacer.afterBatch(4.5)).toBe(4.5);
    expect(await pacer.afterBatch(0)).toBe(1);
    const began = performance.now();
    expect(await pacer.afterBatch(10_000)).toBe(EXPORT_MAX_PAUSE_MS);
    expect(performance.now() - began).toBeGreaterThanOrEqual(EXPORT_MAX_PAUSE_MS - 1);
  });

  it("lets a callback that was waiting run between two slices", async () => {
    const pacer = createExportPacer(() => false);
    const order: string[] = [];
    setImmediate(() => order.push("other request"));
    order.push("slice 1");
    await pacer.betweenSlices();
    order.push("slice 2");
    expect(order).toEqual(["slice 1", "other request", "slice 2"]);
  });
});
