import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { addressRefusal, checkOutboundUrl, displayUrl, policyFetch } from "@/lib/security/outbound-policy";
import { REFUSED_URLS } from "../helpers/bad-inputs";

const none = { allow: [] };
const publicDns = async () => ["93.184.216.34"];

describe("the outbound policy", () => {
  it.each(REFUSED_URLS)("refuses %s (%s)", async (_label, url) => {
    const check = await checkOutboundUrl(url, none, async (host) =>
      host === "localhost" ? ["127.0.0.1", "::1"] : publicDns(),
    );
    expect(check.ok, JSON.stringify(check)).toBe(false);
  });

  it("lets public addresses and names through", async () => {
    expect(await checkOutboundUrl("https://93.184.216.34/mcp", none)).toEqual({ ok: true });
    expect(await checkOutboundUrl("https://[2606:2800:220:1:248:1893:25c8:1946]/mcp", none)).toEqual({ ok: true });
    expect(await checkOutboundUrl("https://mcp.example.com/mcp", none, publicDns)).toEqual({ ok: true });
  });

  it("judges a name by every address it resolves to", async () => {
    const check = await checkOutboundUrl("https://rebinder.example/mcp", none, async () => [
      "93.184.216.34",
      "10.0.0.1",
    ]);
    expect(check).toEqual({ ok: false, reason: "rebinder.example resolves to 10.0.0.1, which is a private address" });
    expect(
      await checkOutboundUrl("https://nowhere.example/", none, async () => Promise.reject(new Error("ENOTFOUND"))),
    ).toMatchObject({ ok: false, reason: "nowhere.example does not resolve" });
  });

  it("lets what outbound.allow names through: a host, an address, a range", async () => {
    expect(
      await checkOutboundUrl("http://mcp.internal:8080/mcp", { allow: ["mcp.internal"] }, async () => ["10.1.2.3"]),
    ).toEqual({ ok: true });
    expect(await checkOutboundUrl("http://10.1.2.3/mcp", { allow: ["10.1.0.0/16"] })).toEqual({ ok: true });
    expect(await checkOutboundUrl("http://10.2.0.1/mcp", { allow: ["10.1.0.0/16"] })).toMatchObject({ ok: false });
    expect(addressRefusal("::1", { allow: ["::1"] })).toBeNull();
  });

  it("refuses at connect time a name that resolves to loopback, and connects where allowed", async () => {
    const server = createServer((_req, res) => res.end("secret body"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    let served = 0;
    server.on("request", () => (served += 1));
    try {
      // "localhost" passes no check here (none was made): only the agent's own lookup stands between.
      const refused = await policyFetch(none)(`http://localhost:${port}/`).then(
        () => null,
        (error: unknown) => error as { cause?: { code?: string; message?: string } },
      );
      expect(refused?.cause?.code).toBe("EOUTBOUND");
      expect(served).toBe(0);
      const allowed = await policyFetch({ allow: ["localhost"] })(`http://localhost:${port}/`);
      expect(await allowed.text()).toBe("secret body");
      expect(served).toBe(1);
    } finally {
      server.close();
    }
  });

  it("shows URLs without credentials or query values", () => {
    expect(displayUrl("http://u:pass@mcp.example.com:8443/mcp?api_key=sk_live_1&region=eu#frag")).toBe(
      "http://mcp.example.com:8443/mcp?api_key=…&region=…#…",
    );
    expect(displayUrl("https://mcp.example.com/mcp")).toBe("https://mcp.example.com/mcp");
  });
});
