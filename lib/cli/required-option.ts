import { Option, type Command } from "commander";

const REQUIRED = new WeakSet<Option>();

/**
 * An option the command cannot run without, checked after commander has refused unknown options:
 * its own `requiredOption` is checked first, so `--sever shop` was answered "required option
 * '--server' not specified" instead of "unknown option '--sever' (Did you mean --server?)".
 * checkRequiredOptions (a preAction hook on the program) does the check.
 */
export function requiredOption<T>(
  flags: string,
  description: string,
  parse?: (value: string, previous: T) => T,
): Option {
  const option = new Option(flags, `${description} (required)`);
  if (parse) option.argParser(parse);
  REQUIRED.add(option);
  return option;
}

/** preAction: the first required option the command was not given, as commander words it (exit 2). */
export function checkRequiredOptions(_program: Command, command: Command): void {
  for (const option of command.options) {
    if (REQUIRED.has(option) && command.getOptionValue(option.attributeName()) === undefined)
      command.error(`error: required option '${option.flags}' not specified`, {
        exitCode: 2,
        code: "commander.missingMandatoryOptionValue",
      });
  }
}
