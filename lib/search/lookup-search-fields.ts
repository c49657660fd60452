import "server-only";
import { getConfig } from "@/lib/config/load";
import { searchSpecs } from "@/lib/config/search-specs";
import type { Actor } from "@/lib/identity/actor";
import type { SearchFields } from "@/lib/records/lookup";
import { searchableQuery } from "@/lib/search/find-by-searchable";

/** The lookup's way into the configured searchable fields; none configured, no id-like word is looked up. */
export function lookupSearchFields(actor: Actor): SearchFields | undefined {
  const config = getConfig();
  if (searchSpecs(config).length === 0) return undefined;
  return (values) => searchableQuery(actor, config, values);
}
