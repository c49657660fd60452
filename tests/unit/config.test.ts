import { describe, expect, it } from "vitest";
import { parseDuration } from "@/lib/config/duration";
import { parseConfig } from "@/lib/config/load";
import { redactJson } from "@/lib/privacy/redact";

const EXAMPLE_CONFIG = {
  tools: {
    charge_card: { stuckAfter: "5m", processor: { type: "http", baseUrl: "http://127.0.0.1:4010", headers: {} } },
    create_shipment: {
      stuckAfter: "10m",
      processor: { type: "mcp-tool", server: "shop", tool: "get_shipment_status" },
    },
  },
  mcpServers: [
    { name: "shop", transport: "http", url: "http://127.0.0.1:4020/mcp" },
    { name: "files", transport: "stdio", command: "mcp-server-filesystem", args: ["/srv/data"] },
  ],
  redact: ["$..card", "$..email"],
};

describe("idem.config.json", () => {
  it("accepts the example configuration and turns durations into milliseconds", () => {
    const config = parseConfig(JSON.stringify(EXAMPLE_CONFIG));
    expect(config.tools.charge_card?.stuckAfter).toBe(300_000);
    expect(config.tools.create_shipment?.stuckAfter).toBe(600_000);
    expect(config.defaultStuckAfter).toBe(300_000);
    expect(config.mcpServers).toHaveLength(2);
    expect(parseConfig(JSON.stringify({ tools: { t: { window: "1h" } } })).tools.t?.window).toBe(3_600_000);
  });

  it("without a redact list, masks card, contact and address-like fields by default", () => {
    const config = parseConfig("{}");
    const response = {
      id: "ch_1",
      card: { last4: "4242" },
      customer: { email: "ann@example.com", phone: "+44 20 7946 0000", name: "Ann" },
      shipping_address: { line1: "1 High St" },
      billing_address: "2 Low Rd",
      items: [{ address: "3 Mid Ln", sku: "A1" }],
      payment: { card_number: "4242424242424242" },
    };
    const { value } = redactJson(response, config.redact);
    expect(JSON.stringify(value)).not.toMatch(/4242|ann@|7946|High St|Low Rd|Mid Ln/);
    expect(value).toMatchObject({ id: "ch_1", customer: { name: "Ann" }, items: [{ sku: "A1" }] });
  });

  it.each([
    ["{ not json", /idem.config.json: not valid JSON/],
    [
      JSON.stringify({ tools: { charge_card: { stuckAfter: "5 minutes" } } }),
      /tools\.charge_card\.stuckAfter: expected a positive duration/,
    ],
    [JSON.stringify({ tools: { charge_card: { processor: { type: "ftp" } } } }), /tools\.charge_card\.processor\.type/],
    [
      JSON.stringify({ tools: { charge_card: { window: "1500ms" } } }),
      /tools\.charge_card\.window: expected a whole number of seconds/,
    ],
    [
      JSON.stringify({ tools: { ship: { window: "15m", businessKey: true } } }),
      /tools\.ship\.window: a tool keyed by a business key has no time window/,
    ],
    [JSON.stringify({ tools: { ship: { businessKey: "yes" } } }), /tools\.ship\.businessKey/],
    [
      JSON.stringify({ tools: { x: { processor: { type: "http", baseUrl: "file:///etc/passwd" } } } }),
      /tools\.x\.processor\.baseUrl: expected an http/,
    ],
    [
      JSON.stringify({ tools: { x: { processor: { type: "mcp-tool", server: "nope", tool: "s" } } } }),
      /tools\.x\.processor\.server: names no server/,
    ],
    [
      JSON.stringify({
        mcpServers: [
          { name: "a", transport: "http", url: "http://x" },
          { name: "a", transport: "http", url: "http://y" },
        ],
      }),
      /mcpServers\.1\.name: duplicate/,
    ],
    [JSON.stringify({ redact: ["card"] }), /redact\.0: expected a JSONPath/],
    [JSON.stringify({ tool: {} }), /Unrecognized key/],
    [
      JSON.stringify({ outbound: { allow: ["10.0.0.0/40"] } }),
      /outbound\.allow\.0: expected a host name, an IP address or a CIDR range/,
    ],
    [JSON.stringify({ outbound: { allow: [""] } }), /outbound\.allow\.0/],
    [JSON.stringify({ outbound: { deny: [] } }), /Unrecognized key/],
    [JSON.stringify({ redactValues: { email: "yes" } }), /redactValues\.email: .*boolean/],
    [JSON.stringify({ redactValues: { phone: true } }), /Unrecognized key/],
    [
      JSON.stringify({ metrics: { rollupEvery: "soon" } }),
      /metrics\.rollupEvery: expected "off" or a positive duration like "15s" or "1m" \(got "soon"\)/,
    ],
    [JSON.stringify({ metrics: { rollupEvery: "0s" } }), /metrics\.rollupEvery: expected "off" or a positive duration/],
    [JSON.stringify({ metrics: { rollupEvery: 15 } }), /metrics\.rollupEvery/],
  ])("rejects %s with a message naming the field", (text, message) => {
    expect(() => parseConfig(text)).toThrow(message);
  });

  it("metrics.rollupEvery: 15 s by default, a duration, or off", () => {
    expect(parseConfig("{}").metrics.rollupEvery).toBe(15_000);
    expect(parseConfig(JSON.stringify({ metrics: { rollupEvery: "1m" } })).metrics.rollupEvery).toBe(60_000);
    expect(parseConfig(JSON.stringify({ metrics: { rollupEvery: "off" } })).metrics.rollupEvery).toBe("off");
  });

  it("parses durations", () => {
    expect(parseDuration("90s")).toBe(90_000);
    expect(parseDuration("48h")).toBe(172_800_000);
    expect(parseDuration("1.5m")).toBe(90_000);
    expect(parseDuration("5")).toBeNull();
    expect(parseDuration("-5m")).toBeNull();
  });
});
