import { describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/config/load";

// database.parallelWorkers (lib/db/client.ts puts it in each primary connection's startup packet).
describe("the console's parallel workers per statement", () => {
  it("default to none, and take a whole number from idem.config.json", () => {
    expect(parseConfig("{}").database.parallelWorkers).toBe(0);
    expect(parseConfig(JSON.stringify({ database: { parallelWorkers: 2 } })).database.parallelWorkers).toBe(2);
  });

  it.each([-1, 1.5, 65, "2", null, true])("refuse %j, naming the field", (value) => {
    expect(() => parseConfig(JSON.stringify({ database: { parallelWorkers: value } }))).toThrow(
      /database\.parallelWorkers/,
    );
  });
});
