import type { McpServer, RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ShapeOutput, ZodRawShapeCompat } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
  CallToolResult,
  ServerNotification,
  ServerRequest,
  ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
import { argumentsJsonOf, checkArgumentsInKey, type KeyScheme } from "../derive-key.ts";
import { withIdempotency } from "../guard.ts";
import type { Queryable } from "../queryable.ts";
import { clientOf } from "./client-of.ts";
import { toolResultOf } from "./tool-result.ts";

/** What the SDK hands a tool callback beside its arguments: the request's auth info, session, signal. */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export type IdempotentToolConfig<Shape extends ZodRawShapeCompat> = {
  title?: string;
  description: string;
  inputSchema: Shape;
  /** The tool's other hints; `idempotentHint` is published as true because the guard is on. */
  annotations?: Omit<ToolAnnotations, "idempotentHint">;
  /** The read-only tool a caller uses to check on a ref ("get_charge_status"); named in every message. */
  statusTool: string;
  /** Where claims live: a pg Pool, or anything with `query(text, params)`. */
  db: Queryable;
  /** The caller's tenant, from the request's auth info: never from the arguments. */
  tenant: (extra: ToolExtra) => string;
  /** The authenticated caller inside the tenant (null when there is none): never from the arguments. */
  subject: (extra: ToolExtra) => string | null;
  /** A real uniqueness rule (an order id) instead of the time bucket, when the domain has one. */
  businessKey?: (args: ShapeOutput<Shape>) => string | undefined;
  /**
   * Default true: the key covers the arguments too. False: `businessKey` alone names the
   * operation (as a payment API's Idempotency-Key does), so a second call under it with other
   * arguments is refused (`isError`, outcome `arguments_mismatch`, nothing run) instead of being
   * run as a new operation; one with the same arguments is replayed. Needs `businessKey`.
   */
  argumentsInKey?: boolean;
  /** The time bucket's width; default 900 s. */
  windowSeconds?: number;
  /** Default "python-json" (the reference writer's); "jcs" is RFC 8785. */
  scheme?: KeyScheme;
  /** How messages name the operation ("A charge") and the far side ("processor"). */
  noun?: string;
  upstream?: string;
  /** A stored response that reaches the caller as an error (a declined card); default: none does. */
  isError?: (response: unknown) => boolean;
  /** Append replay, in-flight, outcome-unknown and arguments-mismatch events (the console reads them). Default true. */
  recordEvents?: boolean;
  clock?: () => Date;
};

/** What the handler gets: pass `key` to the upstream as its own idempotency reference. */
export type IdempotentCall<Shape extends ZodRawShapeCompat> = {
  key: string;
  ref: string;
  args: ShapeOutput<Shape>;
  at: Date;
  extra: ToolExtra;
};

/**
 * `server.registerTool` with the guard in front: the key is derived from the caller and the
 * arguments, claimed before the handler runs, a completed call's response is replayed, a call
 * still in flight is answered with its ref, and an `OutcomeUnknownError` leaves the claim for
 * reconciliation. A call whose business key names an operation made with other arguments is
 * refused (`isError`, nothing run); with `argumentsInKey: false` that is what a second call under
 * one business key with other arguments gets. The handler's return value is the stored response
 * every repeat receives. Throws `KeyInputError` for `argumentsInKey: false` without `businessKey`.
 */
export function registerIdempotentTool<Shape extends ZodRawShapeCompat>(
  server: McpServer,
  name: string,
  config: IdempotentToolConfig<Shape>,
  handler: (call: IdempotentCall<Shape>) => Promise<unknown>,
): RegisteredTool {
  const isError = config.isError ?? (() => false);
  // Refused when registering, not at the first call.
  checkArgumentsInKey(config.argumentsInKey, config.businessKey !== undefined);
  const register = server.registerTool.bind(server) as (
    name: string,
    tool: { title?: string; description: string; inputSchema: Shape; annotations: ToolAnnotations },
    callback: (args: ShapeOutput<Shape>, extra: ToolExtra) => Promise<CallToolResult>,
  ) => RegisteredTool;

  return register(
    name,
    {
      title: config.title,
      description: config.description,
      inputSchema: config.inputSchema,
      annotations: { ...config.annotations, idempotentHint: true },
    },
    async (args, extra) => {
      const guarded = withIdempotency(
        {
          db: config.db,
          tool: name,
          statusTool: config.statusTool,
          noun: config.noun,
          upstream: config.upstream,
          clock: config.clock,
          windowSeconds: config.windowSeconds,
          scheme: config.scheme,
          recordEvents: config.recordEvents,
          businessKey: config.businessKey ? () => config.businessKey?.(args) : undefined,
          argumentsInKey: config.argumentsInKey,
        },
        ({ key, ref, at }) => handler({ key, ref, args, at, extra }),
      );
      const result = await guarded({
        tenant: config.tenant(extra),
        subject: config.subject(extra),
        argumentsJson: argumentsJsonOf(args),
        client: clientOf(server),
      });
      return toolResultOf(result, isError);
    },
  );
}
