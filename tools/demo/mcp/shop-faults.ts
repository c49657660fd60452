import { MAX_HOLD_FOR_DUPLICATE_MS } from "@/tools/demo/mcp/demo-caller";
import { HttpError } from "@/tools/demo/upstream/json-http";

/** How the demo shop misbehaves on purpose, for every caller; changed at run time (PATCH /_faults). */
export type ShopFaults = {
  /**
   * charge_card keeps its claim until a repeat of the call was turned away as in flight, at most
   * this long (0: never). A call's own `_meta` hold wins. It makes a Verify… run's race a race on
   * any machine, where a slow processor only makes it likely.
   */
  holdForDuplicateMs: number;
};

export const DEFAULT_SHOP_FAULTS: ShopFaults = { holdForDuplicateMs: 0 };

/** The shop's settings, shared by every request of one server. */
export function createShopFaults() {
  let settings: ShopFaults = { ...DEFAULT_SHOP_FAULTS };
  return {
    current: (): ShopFaults => ({ ...settings }),
    /** Applies a partial update; a bad field is refused by name and changes nothing. */
    update(partial: unknown): ShopFaults {
      settings = mergeShopFaults(settings, partial);
      return { ...settings };
    },
  };
}

export type ShopFaultState = ReturnType<typeof createShopFaults>;

function mergeShopFaults(base: ShopFaults, partial: unknown): ShopFaults {
  if (typeof partial !== "object" || partial === null || Array.isArray(partial)) invalid("faults", "an object");
  const next = { ...base };
  for (const [field, value] of Object.entries(partial as Record<string, unknown>)) {
    if (field !== "holdForDuplicateMs") invalid(field, "holdForDuplicateMs (the shop's only setting)");
    if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > MAX_HOLD_FOR_DUPLICATE_MS)
      invalid(field, `whole milliseconds from 0 to ${MAX_HOLD_FOR_DUPLICATE_MS}`);
    next.holdForDuplicateMs = value as number;
  }
  return next;
}

function invalid(field: string, expected: string): never {
  throw new HttpError(400, "invalid_faults", `${field}: expected ${expected}`);
}
