/** The CPU sampler's arguments (tools/bench/cpu-by-process.ts): `[--every-ms N] -- <command> [args…]`. */
export type SamplerArgs = { everyMs: number; command: string; commandArgs: string[] } | { refusal: string };

export const SAMPLER_USAGE = "usage: npx tsx tools/bench/cpu-by-process.ts [--every-ms 500] -- <command> [args…]";

export function samplerArgs(args: string[]): SamplerArgs {
  const dash = args.indexOf("--");
  if (dash < 0 || dash === args.length - 1) return { refusal: SAMPLER_USAGE };
  let everyMs = 500;
  for (let i = 0; i < dash; i += 2) {
    if (args[i] !== "--every-ms") return { refusal: `unknown option ${args[i]}\n${SAMPLER_USAGE}` };
    everyMs = i + 1 < dash ? Number(args[i + 1]) : NaN;
  }
  if (!Number.isInteger(everyMs) || everyMs < 50)
    return { refusal: "--every-ms: a whole number of milliseconds, 50 or more" };
  return { everyMs, command: args[dash + 1]!, commandArgs: args.slice(dash + 2) };
}
