import { describe, expect, it } from "vitest";
import { isSameOrigin } from "@/lib/api/same-origin";

const post = (headers: Record<string, string>, url = "http://127.0.0.1:3000/api/v1/bulk/apply") =>
  new Request(url, { method: "POST", headers });
const site = { NEXTAUTH_URL: "http://127.0.0.1:3000" };

describe("isSameOrigin: the configured public origin, scheme, host and port", () => {
  it("accepts the public origin, in any spelling the URL parser normalises", () => {
    expect(isSameOrigin(post({ origin: "http://127.0.0.1:3000" }), site)).toBe(true);
    expect(
      isSameOrigin(post({ origin: "https://idem.example.com" }), { NEXTAUTH_URL: "https://IDEM.example.com:443/" }),
    ).toBe(true);
  });

  it.each([
    ["no Origin", {}],
    ["another scheme on the same host and port", { origin: "https://127.0.0.1:3000" }],
    ["another port", { origin: "http://127.0.0.1:3001" }],
    ["another host", { origin: "http://evil.test:3000" }],
    ["the literal null origin", { origin: "null" }],
    ["a non-http scheme", { origin: "file://127.0.0.1:3000" }],
    [
      "a forged X-Forwarded-Host without a trusted proxy",
      { origin: "http://evil.test", "x-forwarded-host": "evil.test" },
    ],
    ["a Host header that matches the Origin", { origin: "http://evil.test", host: "evil.test" }],
  ])("refuses %s", (_label, headers) => {
    expect(isSameOrigin(post(headers as Record<string, string>), site)).toBe(false);
  });

  it("counts X-Forwarded-Proto/-Host only with IDEM_TRUST_PROXY=1", () => {
    const behindProxy = post({
      origin: "https://console.example.com",
      "x-forwarded-host": "console.example.com",
      "x-forwarded-proto": "https",
    });
    expect(isSameOrigin(behindProxy, site)).toBe(false);
    expect(isSameOrigin(behindProxy, { ...site, IDEM_TRUST_PROXY: "1" })).toBe(true);
    // Even trusted, the scheme must match what the proxy says.
    expect(
      isSameOrigin(
        post({
          origin: "http://console.example.com",
          "x-forwarded-host": "console.example.com",
          "x-forwarded-proto": "https",
        }),
        { ...site, IDEM_TRUST_PROXY: "1" },
      ),
    ).toBe(false);
  });

  it("without NEXTAUTH_URL, the request's own origin", () => {
    expect(isSameOrigin(post({ origin: "http://127.0.0.1:3000" }), {})).toBe(true);
    expect(isSameOrigin(post({ origin: "https://127.0.0.1:3000" }), {})).toBe(false);
  });
});
