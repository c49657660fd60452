import type { IdemConfig } from "@/lib/config/schema";
import { policyFetch } from "@/lib/security/outbound-policy";

/**
 * The fetch every connection of a verification goes through: the one outbound policy, judged at
 * connect time. The hosts idem.config.json names itself (its MCP servers' URLs, its processors'
 * base URLs) are the operator's word and pass, as the policy says of the file's URLs; anything
 * else (a redirect target, a name that resolves elsewhere) must be a public address or be in
 * outbound.allow.
 */
export function verificationFetch(config: IdemConfig): typeof fetch {
  const named = [
    ...config.mcpServers.flatMap((server) => (server.transport === "http" ? [server.url] : [])),
    ...Object.values(config.tools).flatMap((tool) => (tool.processor?.type === "http" ? [tool.processor.baseUrl] : [])),
  ].map((url) => new URL(url).hostname.replace(/^\[|\]$/g, ""));
  return policyFetch({ allow: [...config.outbound.allow, ...new Set(named)] });
}
