import { z } from "zod";

/**
 * The names the console takes from config, API bodies and CLI flags, each one rule with one
 * message (docs/architecture.md#shared-field-rules). Plain zod, no server code.
 */

/** An MCP server's name (idem.config.json, the Tools page, tools/list snapshots): it is also a URL query value. */
export const SERVER_NAME_PATTERN = /^[A-Za-z0-9_.:-]{1,100}$/;
export const serverNameSchema = z
  .string()
  .regex(SERVER_NAME_PATTERN, "expected a server name: letters, digits, _ . : - (1-100)");

/** A tool as idem.config.json names it (`tools.<tool>`, a processor's `tool`): the server name's alphabet. */
export const configuredToolNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{1,100}$/, "expected a tool name: letters, digits, _ . : - (1-100)");

const NAME_WITHOUT_SPACES = /^[^\s\u0000-\u001f\u007f]{1,200}$/;
const NAME_WITHOUT_SPACES_MESSAGE = "expected a name without spaces or control characters (1-200)";

/** A tenant or tool as the table records it, given exactly: no spaces, no control characters. */
export const nameWithoutSpacesSchema = z.string().regex(NAME_WITHOUT_SPACES, NAME_WITHOUT_SPACES_MESSAGE);

/** The same, typed by a person (a filter, a flag): surrounding spaces are dropped first. */
export const typedNameWithoutSpacesSchema = z.string().trim().regex(NAME_WITHOUT_SPACES, NAME_WITHOUT_SPACES_MESSAGE);

/** A tenant a user or token is limited to: no spaces, and no commas, which would blur the lists that print them. */
export const tenantIdSchema = z
  .string()
  .trim()
  .regex(/^[^\s,]{1,200}$/, "expected a tenant id without spaces or commas");

/**
 * A tenant or tool picked from the Stuck page's filter: any recorded value, spaces included (the
 * table does not forbid them), within 200 characters and without control characters.
 */
export const recordedNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[^\u0000-\u001f\u007f]*$/, "control characters are not allowed");
