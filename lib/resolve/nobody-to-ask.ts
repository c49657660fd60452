import type { ProcessorCheck } from "./processor-check-types";

/**
 * An unknown answer because nobody can be asked (the tool has no processor in idem.config.json,
 * or the writer did not record the tool) — not a processor that failed to answer. Asking again
 * cannot change it; only configuration or a forced release can.
 */
export function isNobodyToAsk(check: Pick<ProcessorCheck, "evidence">): boolean {
  return check.evidence.adapter === "none";
}

/**
 * What can clear such a claim, in one sentence: configure a processor for its tool, or release
 * it by force on its record page (admins, with the typed confirmation) once someone has made
 * sure the side effect did not happen.
 */
export function nobodyToAskAdvice(tool: string | null): string {
  const force =
    "release it with a forced release on its record page (admins, typed confirmation), once you have made sure with the processor that nothing happened";
  return tool === null
    ? `Asking again cannot help: the writer did not record the tool, so there is no processor to ask. ${capitalize(force)}.`
    : `Asking again cannot help: configure a processor for ${tool} in idem.config.json (tools.${tool}.processor), or ${force}.`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
