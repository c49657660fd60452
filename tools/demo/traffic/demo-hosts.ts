import type { Prng } from "@/tools/demo/traffic/prng";

const SECOND = 1000;

/**
 * The MCP hosts that call the demo shop, named as their initialize handshake names them (the
 * events' `client`). Their retry habits differ, so a record's repeat delays tell them apart.
 */
export const DEMO_HOSTS = {
  // Its transport retries a call that seems slow by itself, within seconds; now and then it fires one twice.
  "claude-desktop": { name: "claude-desktop", version: "0.14.2", weight: 55 },
  // Never retries by itself: a repeat is its model asking again, minutes later.
  cursor: { name: "cursor", version: "1.7.3", weight: 45 },
} as const;
export type DemoHost = keyof typeof DEMO_HOSTS;
export const DEMO_HOST_IDS = Object.keys(DEMO_HOSTS) as DemoHost[];

export function pickHost(rng: Prng): DemoHost {
  return rng.weighted(DEMO_HOST_IDS.map((host) => [host, DEMO_HOSTS[host].weight] as const));
}

/** How long after a call `host` repeats it: its habit, in the bands lib/repeats/repeat-delay-band.ts names. */
export function repeatDelayMs(host: DemoHost, rng: Prng): number {
  if (host === "claude-desktop") return rng.int(1, 20) * SECOND;
  // Mostly minutes; one in four near the 15-minute window's end (its last fifth), where a key is about to lapse.
  return (rng.chance(1 / 4) ? rng.int(725, 880) : rng.int(120, 600)) * SECOND;
}
