import type { IdemConfig } from "@/lib/config/schema";
import { displayUrl } from "@/lib/security/outbound-policy";

/**
 * A server whose tools the console audits. stdio servers exist only with origin "config":
 * they run a command on the console's host, so only the configuration file may name one.
 */
export type AuditedServer =
  | { name: string; origin: "config" | "ui"; transport: "http"; url: string; headers: Record<string, string> }
  | {
      name: string;
      origin: "config";
      transport: "stdio";
      command: string;
      args: string[];
      env?: Record<string, string>;
    };

/** What the API and the page may show of a server: header names, never their values (secrets). */
export type ServerSummary = {
  name: string;
  origin: "config" | "ui" | "upload";
  transport: "http" | "stdio" | "upload";
  /** The URL for http, the command line for stdio, null for upload-only names. */
  target: string | null;
  headerNames: string[];
};

export function configServers(config: IdemConfig): AuditedServer[] {
  return config.mcpServers.map((server) =>
    server.transport === "http"
      ? { name: server.name, origin: "config", transport: "http", url: server.url, headers: server.headers }
      : {
          name: server.name,
          origin: "config",
          transport: "stdio",
          command: server.command,
          args: server.args,
          ...(server.env ? { env: server.env } : {}),
        },
  );
}

export function summarizeServer(server: AuditedServer): ServerSummary {
  return {
    name: server.name,
    origin: server.origin,
    transport: server.transport,
    // Stored whole, shown without credentials or query values (a token in ?api_key= is a secret).
    target: server.transport === "http" ? displayUrl(server.url) : [server.command, ...server.args].join(" "),
    headerNames: server.transport === "http" ? Object.keys(server.headers).sort() : [],
  };
}
