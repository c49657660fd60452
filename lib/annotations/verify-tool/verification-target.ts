import { configServers, type AuditedServer } from "@/lib/annotations/audited-servers";
import type { IdemConfig } from "@/lib/config/schema";

/**
 * The server a verification calls. From idem.config.json it must be marked `"verify": true`
 * (staging): a verification makes real side effects. A command given on verify-tool's command line
 * (`--stdio`) is the server's own CI running it against its own test upstreams, so it counts as
 * marked. Servers an admin added through the console are never verified (they are not in the file).
 */
export type VerificationTarget = AuditedServer & { origin: "config" };

/** The command, its arguments, and the environment it runs with (the CI's own, so its variables reach the server). */
export type CommandLineServer = { command: string; args: string[]; env?: Record<string, string> };

export type TargetLookup =
  { ok: true; target: VerificationTarget } | { ok: false; code: "bad_server" | "not_verifiable"; message: string };

export function findVerificationTarget(
  config: IdemConfig,
  name: string,
  commandLine?: CommandLineServer,
): TargetLookup {
  if (commandLine) {
    return { ok: true, target: { name, origin: "config", transport: "stdio", ...commandLine } };
  }
  const server = config.mcpServers.find((s) => s.name === name);
  if (!server)
    return {
      ok: false,
      code: "bad_server",
      message: `No server ${JSON.stringify(name)} in idem.config.json: only the file's servers can be verified (servers added in the console never can).`,
    };
  if (!server.verify)
    return {
      ok: false,
      code: "not_verifiable",
      message: `Server ${name} is not marked "verify": true in idem.config.json. A verification makes real side effects (charges, shipments); mark only a staging server.`,
    };
  // The same mapping the tool audit lists the file's servers with.
  const target = configServers(config).find((s) => s.name === name) as VerificationTarget;
  return { ok: true, target };
}
