import type { ConsoleRequestKind } from "@/lib/db/timeouts";

/**
 * The `application_name` every console connection carries (pg_stat_activity shows it): an operator
 * tells the console's backends from the writers' at a glance, and `idem bench-writers` fails when a
 * writer waits on a lock held by a backend of this name.
 */
export const CONSOLE_APPLICATION_NAME = "idem-console";

/** The export pool's connections are named apart (`idem-console:export`): its statements run longest. */
export function consoleApplicationName(kind: ConsoleRequestKind): string {
  return kind === "export" ? `${CONSOLE_APPLICATION_NAME}:export` : CONSOLE_APPLICATION_NAME;
}

/** Whether a backend's application_name is one of the console's. */
export function isConsoleApplicationName(name: string): boolean {
  return name === CONSOLE_APPLICATION_NAME || name.startsWith(`${CONSOLE_APPLICATION_NAME}:`);
}
