import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import Provider, { type JWK } from "oidc-provider";
import { freePort } from "./free-port";

/** `emailVerified: false` makes the provider say it has not verified the address. */
export type OidcPerson = { email: string; name: string; emailVerified?: boolean };

export type OidcIssuer = {
  /** The issuer URL the console's OIDC_ISSUER names (http on loopback). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** How many times the token endpoint handed out tokens (a code exchanged). */
  codesExchanged(): number;
  /** The query of the latest authorization request the console sent a browser to. */
  lastAuthorizationRequest(): URLSearchParams | undefined;
  /**
   * Changes `state` in the next redirect back to the console, as an attacker between the two would,
   * and resolves with the redirect URL the provider meant to send (the genuine one).
   */
  tamperWithNextCallbackState(): Promise<URL>;
  stop(): Promise<void>;
};

/**
 * A real OpenID Provider (oidc-provider, OpenID Certified) on 127.0.0.1, with one confidential
 * client for the console whose only redirect URI is its next-auth callback. Its development login
 * page signs in whoever types a login, as the account of that name: `people` gives each such
 * account an e-mail and a name, the claims the console matches against its user list. PKCE is
 * required of the console, as a strict provider would.
 */
export async function startOidcIssuer(options: { redirectUri: string; people: OidcPerson[] }): Promise<OidcIssuer> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = "idem-console";
  const clientSecret = randomBytes(24).toString("base64url");
  const people = new Map(options.people.map((p) => [p.email, p]));
  const signingKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    jwks: { keys: [{ ...signingKey, kid: "test", alg: "RS256", use: "sig" } as JWK] },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    pkce: { required: () => true },
    // The built-in login and consent pages: fine for a test issuer, and what a person clicks through.
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx, sub) {
      const person = people.get(sub);
      return {
        accountId: sub,
        async claims() {
          return person
            ? { sub, email: person.email, email_verified: person.emailVerified ?? true, name: person.name }
            : { sub };
        },
      };
    },
  });
  let exchanged = 0;
  provider.on("grant.success", () => (exchanged += 1));
  let authorizationRequest: URLSearchParams | undefined;
  let tamper: ((genuine: URL) => void) | undefined;
  provider.use(async (ctx, next) => {
    if (ctx.method === "GET" && ctx.path === "/auth") authorizationRequest = new URLSearchParams(ctx.querystring);
    await next();
    const location = ctx.response.get("location") ?? "";
    if (!tamper || !location.startsWith(`${options.redirectUri}?`)) return;
    const genuine = new URL(location);
    const tampered = new URL(location);
    tampered.searchParams.set("state", `${genuine.searchParams.get("state") ?? ""}x`);
    ctx.set("location", tampered.toString());
    tamper(genuine);
    tamper = undefined;
  });

  const server: Server = createServer(provider.callback());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    issuer,
    clientId,
    clientSecret,
    codesExchanged: () => exchanged,
    lastAuthorizationRequest: () => authorizationRequest,
    tamperWithNextCallbackState: () => new Promise<URL>((resolve) => (tamper = resolve)),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
