import type { Profile } from "next-auth";
import type { OAuthConfig } from "next-auth/providers/oauth";
import type { TokenSet } from "openid-client";

type UserinfoRequest = NonNullable<Exclude<OAuthConfig<Profile>["userinfo"], string | undefined>["request"]>;

/**
 * The OIDC identity the console matches against its user list. With the code flow a provider may
 * put the e-mail and name only in its UserInfo answer and leave the ID token at `sub` (OIDC Core
 * §5.4; oidc-provider does exactly that), so when the verified ID token has no e-mail the UserInfo
 * endpoint is asked too. Given the token set, openid-client refuses a UserInfo `sub` that is not
 * the ID token's.
 */
export const oidcProfile: UserinfoRequest = async ({ tokens, client }) => {
  // next-auth types the tokens as plain parameters; what it passes is openid-client's TokenSet.
  const tokenSet = tokens as unknown as TokenSet;
  const idTokenClaims = tokenSet.claims();
  if (typeof idTokenClaims.email === "string" && idTokenClaims.email !== "") return idTokenClaims as Profile;
  return { ...idTokenClaims, ...(await client.userinfo(tokenSet)) } as Profile;
};
