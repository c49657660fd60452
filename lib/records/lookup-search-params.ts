import { createLoader, createSerializer, parseAsString } from "nuqs/server";

/**
 * THE lookup page's URL state: `q`, the pasted text (or the refs found in it). Shared by the
 * server page (createLoader), the lookup form and the header box (serializer, from any page).
 * Imported by client components: no server code here.
 */
export const lookupSearchParams = {
  q: parseAsString.withDefault(""),
};

export const loadLookupParams = createLoader(lookupSearchParams);

/** `serializeLookupParams("/lookup", { q })` → the lookup of that text. */
export const serializeLookupParams = createSerializer(lookupSearchParams);
