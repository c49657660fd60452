import { InvalidArgumentError, type Command } from "commander";
import { requiredOption } from "@/lib/cli/required-option";
import { printJson, runCommand } from "@/lib/cli/run-command";
import { UserError } from "@/lib/errors/user-error";
import { expectedInstant, parseInstant } from "@/lib/format/instant";
import {
  CanonicalJsonError,
  DEFAULT_WINDOW_SECONDS,
  deriveKey,
  KEY_SCHEMES,
  KeyInputError,
  type KeyScheme,
} from "idem-guard";

type KeyOptions = {
  tenant: string;
  subject?: string;
  tool: string;
  args: string;
  at?: Date;
  window: number;
  scheme: KeyScheme;
  businessKey?: string;
  businessKeyAlone?: boolean;
  json?: boolean;
};

/** `idem key`: derives a key the way the writers do, to check a ref by hand. Needs no database. */
export function registerKey(program: Command): void {
  program
    .command("key")
    .description("derive the idempotency key a writer computes for a tool call")
    .addOption(requiredOption("--tenant <tenant>", "the caller's tenant"))
    .option("--subject <subject>", "the caller's subject (absent: Python's None)")
    .addOption(requiredOption("--tool <tool>", "the tool name, e.g. charge_card"))
    .addOption(requiredOption("--args <json>", "the call's arguments as JSON text"))
    .option("--at <time>", "when the call happened: ISO 8601 or unix seconds (default: now)", parseAtOption)
    .option("--window <seconds>", "width of the time bucket in seconds", parseWindowOption, DEFAULT_WINDOW_SECONDS)
    .option("--scheme <scheme>", "canonical form: python-json or jcs", parseSchemeOption, "python-json" as KeyScheme)
    .option("--business-key <key>", "a business key (an order id) that replaces the time bucket")
    .option(
      "--business-key-alone",
      "the business key alone names the operation: the arguments are not in the key (idem-guard's argumentsInKey: false)",
    )
    .option("--json", "print JSON")
    .action(
      runCommand(async (options: KeyOptions) => {
        let derived;
        try {
          derived = deriveKey({
            tenant: options.tenant,
            subject: options.subject ?? null,
            tool: options.tool,
            argumentsJson: options.args,
            at: options.at ?? new Date(),
            windowSeconds: options.window,
            scheme: options.scheme,
            businessKey: options.businessKey,
            argumentsInKey: options.businessKeyAlone ? false : undefined,
          });
        } catch (error) {
          if (error instanceof CanonicalJsonError) throw new UserError(`--args: not valid JSON: ${error.message}`);
          if (error instanceof KeyInputError) throw new UserError(error.message);
          throw error;
        }
        const { scheme, canonical, material, bucket, key, ref, argumentsSha256 } = derived;
        if (options.json) return void printJson({ scheme, canonical, material, bucket, key, ref, argumentsSha256 });
        for (const [name, value] of Object.entries({ scheme, canonical, material, bucket, key, ref, argumentsSha256 }))
          console.log(`${name}: ${value}`);
      }),
    );
}

export function parseAtOption(value: string): Date {
  // The console's one instant rule (lib/format/instant.ts): a bare "12:00" is refused, not read in this machine's zone.
  const at = parseInstant(value.trim(), { unixSeconds: true });
  if (at === null)
    throw new InvalidArgumentError(
      `expected ${expectedInstant({ unixSeconds: true })}; a time without a zone is refused.`,
    );
  return at;
}

export function parseWindowOption(value: string): number {
  const seconds = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(seconds) || seconds <= 0)
    throw new InvalidArgumentError("expected a positive whole number of seconds.");
  return seconds;
}

export function parseSchemeOption(value: string): KeyScheme {
  const scheme = KEY_SCHEMES.find((s) => s === value);
  if (scheme === undefined) throw new InvalidArgumentError("expected python-json or jcs.");
  return scheme;
}
