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
 * it by force (admins, with the typed confirmation) once someone has made sure the side effect
 * did not happen. `asked`: said after an answer ("asking again cannot help") or before anyone
 * asked, where the page already knows there is nobody; `here`: on the record page itself.
 */
export function nobodyToAskAdvice(tool: string | null, options: { asked?: boolean; here?: boolean } = {}): string {
  const { asked = true, here = false } = options;
  const force = `release it with a forced release ${here ? "on this page" : "on its record page"} (admins, typed confirmation), once you have made sure with the processor that nothing happened`;
  if (tool === null)
    return asked
      ? `Asking again cannot help: the writer did not record the tool, so there is no processor to ask. ${capitalize(force)}.`
      : `There is no processor to ask: the writer did not record the tool. ${capitalize(force)}.`;
  const configure = `configure a processor for ${tool} in idem.config.json (tools.${tool}.processor), or ${force}`;
  return asked ? `Asking again cannot help: ${configure}.` : `There is no processor to ask for ${tool}: ${configure}.`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
