/**
 * What allowing a repeat means, in the words the confirmation, the CLI and the docs use. Imported
 * by client components: no server code here.
 */
export function repeatConsequence(tool: string | null): string {
  if (tool === null) return "the next identical call will run the tool again";
  // A charge is the case that hurts: say it plainly.
  return /charge|pay/i.test(tool)
    ? "the next identical call will charge again"
    : `the next identical call will run ${tool} again`;
}
