import { errorReply } from "./json-http";
import type { FaultSettings, UpstreamStats } from "./upstream-types";
import type { UpstreamRoute } from "./upstream-route";

interface Controls {
  stats(): UpstreamStats;
  faults(): FaultSettings;
  setFaults(partial: unknown): FaultSettings;
  reset(): void;
}

/** Routes every demo upstream has: the resolver's reference look-up, and the test/demo controls. */
export function builtInRoutes(controls: Controls): UpstreamRoute[] {
  return [
    {
      method: "GET",
      path: "/references/:reference",
      kind: "query",
      handle: ({ params, ledger }) => {
        const reference = params.reference ?? "";
        const status = ledger.status(reference);
        if (!status) return errorReply(404, "not_found", `no operation with reference ${reference}`);
        return { status: 200, body: status };
      },
    },
    { method: "GET", path: "/_stats", kind: "admin", handle: () => ({ status: 200, body: controls.stats() }) },
    {
      method: "POST",
      path: "/_reset",
      kind: "admin",
      handle: () => {
        controls.reset();
        return { status: 200, body: { reset: true } };
      },
    },
    { method: "GET", path: "/_faults", kind: "admin", handle: () => ({ status: 200, body: controls.faults() }) },
    {
      method: "PATCH",
      path: "/_faults",
      kind: "admin",
      handle: async ({ readBody }) => ({ status: 200, body: controls.setFaults(await readBody()) }),
    },
  ];
}
