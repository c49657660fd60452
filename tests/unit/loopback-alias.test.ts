import { describe, expect, it } from "vitest";
import { loopbackAliasRedirect } from "@/lib/security/loopback-alias";

describe("loopbackAliasRedirect: another loopback name goes to the public URL's", () => {
  it("127.0.0.1 or [::1] for localhost (and back), same port: the same path and query at the public URL", () => {
    expect(loopbackAliasRedirect("http://localhost:3000", "127.0.0.1:3000", "/stuck?tool=charge_card")).toBe(
      "http://localhost:3000/stuck?tool=charge_card",
    );
    expect(loopbackAliasRedirect("http://localhost:3000", "[::1]:3000", "/")).toBe("http://localhost:3000/");
    expect(loopbackAliasRedirect("http://127.0.0.1:3200", "localhost:3200", "/sign-in")).toBe(
      "http://127.0.0.1:3200/sign-in",
    );
  });

  it("nothing for the public name itself, another port, a non-loopback host on either side, or no public URL", () => {
    expect(loopbackAliasRedirect("http://localhost:3000", "localhost:3000", "/")).toBeNull();
    expect(loopbackAliasRedirect("http://localhost:3000", "127.0.0.1:3001", "/")).toBeNull();
    expect(loopbackAliasRedirect("https://console.example.com", "127.0.0.1", "/")).toBeNull();
    expect(loopbackAliasRedirect("http://localhost:3000", "evil.example:3000", "/")).toBeNull();
    expect(loopbackAliasRedirect(undefined, "127.0.0.1:3000", "/")).toBeNull();
    expect(loopbackAliasRedirect("http://localhost:3000", null, "/")).toBeNull();
    expect(loopbackAliasRedirect("http://localhost:3000", "bad host\u0000", "/")).toBeNull();
  });

  it("the path stays on the public origin: a path that looks like another origin is not followed", () => {
    expect(loopbackAliasRedirect("http://localhost:3000", "127.0.0.1:3000", "//evil.example/x")).toBe(
      "http://localhost:3000//evil.example/x",
    );
  });
});
