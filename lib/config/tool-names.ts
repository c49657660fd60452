import "server-only";
import { getConfig } from "@/lib/config/load";

/** The tools idem.config.json names: a filter's choices when there are no counts to add to them (a refused filter). */
export function configuredToolNames(): string[] {
  return Object.keys(getConfig().tools);
}
