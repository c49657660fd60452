import { debugRequested } from "@/lib/config/environment";
import { describeDatabaseError } from "@/lib/db/describe-error";
import { UserError } from "@/lib/errors/user-error";

/**
 * Runs a command's body and turns every failure into one line on stderr and an exit code:
 * 2 for bad input, 1 for anything unavailable or failed. Never a stack trace (IDEM_DEBUG=1 shows it).
 */
export function runCommand<A extends unknown[]>(body: (...args: A) => Promise<number | void>) {
  return async (...args: A): Promise<void> => {
    try {
      const code = await body(...args);
      process.exitCode = code ?? 0;
    } catch (error) {
      if (debugRequested()) console.error(error);
      if (error instanceof UserError) {
        console.error(`idem: ${error.message}`);
        process.exitCode = error.exitCode;
      } else if (isDatabaseError(error)) {
        console.error(`idem: ${describeDatabaseError(error)}`);
        process.exitCode = 1;
      } else {
        console.error(`idem: ${error instanceof Error ? error.message : String(error)}`);
        process.exitCode = 1;
      }
    }
  };
}

function isDatabaseError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (/^[0-9A-Z]{5}$/.test(code) || code.startsWith("E"));
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
