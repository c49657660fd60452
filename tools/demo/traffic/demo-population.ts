import type { Prng } from "@/tools/demo/traffic/prng";

/**
 * Who calls the demo shop. "acme" is the tenant the demo's acme-support sign-in is limited to;
 * weights make it the busiest, so that sign-in has plenty to look at.
 */
export const DEMO_TENANTS = [
  { tenant: "acme", weight: 4, subjects: 60 },
  { tenant: "globex", weight: 3, subjects: 40 },
  { tenant: "initech", weight: 2, subjects: 30 },
  { tenant: "umbrella", weight: 1, subjects: 15 },
] as const;

const PRICES = [499, 1299, 1999, 2400, 3450, 4999, 7900, 8900, 12000, 15900, 24000, 49900];
const STREETS = [
  "12 Elm St, Springfield",
  "400 Market St, San Francisco",
  "9 Rue de Rivoli, Paris",
  "221B Baker St, London",
  "1 Infinite Loop, Cupertino",
  "77 Mass Ave, Cambridge",
];
export const SERVICE_LEVELS = ["ground", "2day", "overnight"] as const;

export type Customer = { tenant: string; subject: string; card: string; email: string; address: string };

export function pickCustomer(rng: Prng): Customer {
  const entry = rng.weighted(DEMO_TENANTS.map((t) => [t, t.weight] as const));
  const tenantIndex = DEMO_TENANTS.indexOf(entry);
  const n = rng.int(1, entry.subjects);
  const subject = `user_${n}`;
  return {
    tenant: entry.tenant,
    subject,
    // One card per customer, so repeats by the same customer hash the same card.
    card: `c_${tenantIndex + 1}${String(n).padStart(3, "0")}`,
    email: `${subject}@${entry.tenant}.example`,
    address: STREETS[(n + tenantIndex) % STREETS.length] ?? "12 Elm St, Springfield",
  };
}

/** A price with odd cents, so two purchases by one customer rarely share a key by accident. */
export function pickAmount(rng: Prng): number {
  return rng.pick(PRICES) + rng.int(0, 99);
}
