import "server-only";
import { z } from "zod";
import { serverNameSchema } from "@/lib/field-rules/names";
import type { Actor } from "@/lib/identity/actor";
import { can } from "@/lib/auth/permissions";
import { writeAudit } from "@/lib/audit/write-audit";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import type { DomainFailure } from "@/lib/errors/error-codes";
import { checkOutboundUrl, displayUrl } from "@/lib/security/outbound-policy";
import { configServers, summarizeServer, type AuditedServer } from "./audited-servers";

/** The servers the console audits: the file's (http and stdio), then those admins added (http only). */
export async function loadAuditedServers(db: Db, config: IdemConfig): Promise<AuditedServer[]> {
  const fromConfig = configServers(config);
  const taken = new Set(fromConfig.map((s) => s.name));
  const added = await db.mcpServer.findMany({ orderBy: { name: "asc" } });
  const fromUi: AuditedServer[] = added
    .filter((s) => !taken.has(s.name))
    .map((s) => ({ name: s.name, origin: "ui", transport: "http", url: s.url, headers: toHeaders(s.headers) }));
  return [...fromConfig, ...fromUi];
}

function toHeaders(value: unknown): Record<string, string> {
  if (typeof value !== "object" || value === null) return {};
  return Object.fromEntries(Object.entries(value).filter((e): e is [string, string] => typeof e[1] === "string"));
}

const STDIO_REFUSAL =
  "Only HTTP servers can be added here. A stdio server runs a command on the console's host, so it may be named only in idem.config.json (mcpServers), never through the UI or the API.";

export const addServerSchema = z
  .looseObject({
    name: serverNameSchema,
    transport: z.string().optional(),
    url: z.url({ protocol: /^https?$/, error: "expected an http:// or https:// URL" }).optional(),
    headers: z
      .record(
        z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "expected an HTTP header name"),
        z
          .string()
          .max(4096)
          .regex(
            /^[^\u0000-\u0008\u000a-\u001f\u007f]*$/,
            "a header value cannot hold control characters (CR, LF, NUL)",
          ),
      )
      .default({}),
  })
  .superRefine((body, ctx) => {
    if (body.transport !== undefined && body.transport !== "http")
      ctx.addIssue({ code: "custom", path: ["transport"], message: STDIO_REFUSAL });
    for (const field of ["command", "args", "env"]) {
      if (field in body) ctx.addIssue({ code: "custom", path: [field], message: STDIO_REFUSAL });
    }
    if (body.url === undefined)
      ctx.addIssue({ code: "custom", path: ["url"], message: "expected an http:// or https:// URL" });
  });
export type AddServerInput = z.output<typeof addServerSchema>;

export type AddServerOutcome =
  | { ok: true; server: ReturnType<typeof summarizeServer> }
  | DomainFailure<"forbidden" | "name_taken" | "outbound_refused">;

/**
 * Adds an HTTP server an admin named in the UI, with its audit row in the same transaction. The
 * audit row and the answer carry header names only: header values are credentials.
 */
export async function addHttpServer(
  db: Db,
  config: IdemConfig,
  actor: Actor,
  input: AddServerInput,
): Promise<AddServerOutcome> {
  if (!can(actor.role, "tools:configure"))
    return { ok: false, code: "forbidden", message: `Your role (${actor.role}) may not add MCP servers.` };
  if (config.mcpServers.some((s) => s.name === input.name)) {
    return {
      ok: false,
      code: "name_taken",
      message: `${input.name} is already a server in idem.config.json; pick another name.`,
    };
  }
  const url = input.url ?? "";
  const check = await checkOutboundUrl(url, { allow: config.outbound.allow });
  if (!check.ok) {
    return {
      ok: false,
      code: "outbound_refused",
      message: `The console may not connect to ${displayUrl(url)}: ${check.reason}. An operator can allow a host or range in idem.config.json (outbound.allow).`,
    };
  }
  const server: AuditedServer = { name: input.name, origin: "ui", transport: "http", url, headers: input.headers };
  return db.$transaction(async (tx) => {
    const existing = await tx.mcpServer.findUnique({ where: { name: input.name }, select: { name: true } });
    if (existing)
      return {
        ok: false as const,
        code: "name_taken" as const,
        message: `A server named ${input.name} was already added.`,
      };
    await tx.mcpServer.create({ data: { name: input.name, url, headers: input.headers, createdBy: actor.name } });
    await writeAudit(tx, actor, {
      action: "tools.server.add",
      after: {
        name: input.name,
        transport: "http",
        url: displayUrl(url),
        headerNames: Object.keys(input.headers).sort(),
      },
    });
    return { ok: true as const, server: summarizeServer(server) };
  });
}
