import { SWEEP_TENANT, type SoakTargets } from "./soak-targets";

/** What a request is, for the tables: reads, the streamed export, the ones that ask the processor, mutations, pages. */
export type RouteClass = "api read" | "api export" | "api processor" | "api mutation" | "page";
export const ROUTE_CLASSES: readonly RouteClass[] = ["api read", "api export", "api processor", "api mutation", "page"];

export type MutationKind = "resolve" | "allow-repeat" | "reconcile";

export type SoakRequest = {
  name: string;
  routeClass: RouteClass;
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  /** A mutation's kind and the keys it names (each key is handed out once in a run; a sweep names none). */
  mutation?: { kind: MutationKind; keys: string[] };
};

const get = (name: string, routeClass: RouteClass, path: string): SoakRequest => ({
  name,
  routeClass,
  method: "GET",
  path,
});

const REASON = "soak: processor says taken";

/**
 * The mix each user cycles through (from a different start each): of 40, 18 API reads and exports,
 * 16 pages, 2 that ask the processor, 4 mutations (resolve, allow-repeat, a reconcile of two keys, a
 * reconcile sweep of three). A builder returns null when
 * it has nothing left to act on (every stuck claim resolved); the user moves on to the next.
 */
export const REQUEST_MIX: Array<(targets: SoakTargets, i: number) => SoakRequest | null> = [
  () => get("records list", "api read", "/api/v1/records"),
  () => get("/records", "page", "/records"),
  (t, i) => get("record detail", "api read", `/api/v1/records/${t.sample(i)}`),
  (t, i) => get("lookup", "api read", `/api/v1/lookup?q=${encodeURIComponent(`ref ${t.sample(i).slice(0, 12)}`)}`),
  () => get("/ (overview)", "page", "/"),
  () => get("records, filtered", "api read", "/api/v1/records?tenant=acme&tool=charge_card&status=completed"),
  (t, i) => ({
    ...get("check with processor", "api processor", `/api/v1/records/${t.stuckSample(i)}/check`),
    method: "POST",
    body: {},
  }),
  (t, i) => get("/records/[key]", "page", `/records/${t.sample(i)}`),
  () => get("metrics", "api read", "/api/v1/metrics?window=24h"),
  (t) => {
    const key = t.takeStuck();
    if (!key) return null;
    return {
      name: "resolve",
      routeClass: "api mutation",
      method: "POST",
      path: `/api/v1/records/${key}/resolve`,
      body: { action: "complete", reason: REASON, expectedUpdatedAt: null },
      mutation: { kind: "resolve", keys: [key] },
    };
  },
  () => get("/stuck", "page", "/stuck"),
  () => get("stuck list", "api read", "/api/v1/records?stuck=true"),
  () => get("audit list", "api read", "/api/v1/audit"),
  () => get("/metrics", "page", "/metrics"),
  () => get("export (csv)", "api export", "/api/v1/records/export?format=csv&tenant=umbrella&tool=refund_charge"),
  (t, i) => get("lookup", "api read", `/api/v1/lookup?q=${encodeURIComponent(t.sample(i + 7).slice(0, 12))}`),
  (t, i) => get("/lookup", "page", `/lookup?q=${t.sample(i).slice(0, 12)}`),
  (t, i) => get("record detail", "api read", `/api/v1/records/${t.sample(i + 3)}`),
  () => get("/audit", "page", "/audit"),
  () => get("/tools", "page", "/tools"),
  (t, i) => ({
    ...get("check with processor", "api processor", `/api/v1/records/${t.stuckSample(i + 5)}/check`),
    method: "POST",
    body: {},
  }),
  () => get("records list", "api read", "/api/v1/records"),
  (t) => {
    const target = t.takeCompleted();
    if (!target) return null;
    return {
      name: "allow-repeat",
      routeClass: "api mutation",
      method: "POST",
      path: `/api/v1/records/${target.key}/allow-repeat`,
      body: { reason: "soak: the customer buys it again", expectedUpdatedAt: target.version },
      mutation: { kind: "allow-repeat", keys: [target.key] },
    };
  },
  () => get("/records", "page", "/records?status=in_progress"),
  () => get("metrics", "api read", "/api/v1/metrics?window=1h"),
  (t, i) => get("/records/[key]", "page", `/records/${t.sample(i + 11)}`),
  () => get("tools audit", "api read", "/api/v1/tools/audit?window=24h"),
  (t) => {
    const keys = [t.takeStuck(), t.takeStuck()].filter((k): k is string => k !== null);
    if (keys.length === 0) return null;
    return {
      name: "reconcile (keys)",
      routeClass: "api mutation",
      method: "POST",
      path: "/api/v1/reconcile",
      body: { filter: { keys }, dryRun: false },
      mutation: { kind: "reconcile", keys },
    };
  },
  () => get("/ (overview)", "page", "/"),
  () => get("prometheus scrape", "api read", "/api/v1/metrics/prometheus"),
  // A sweep records a job run (a keyed reconcile does not): a restart that cuts one off leaves it "did not finish".
  () => ({
    name: "reconcile (sweep)",
    routeClass: "api mutation",
    method: "POST",
    path: "/api/v1/reconcile",
    body: { filter: { tenant: SWEEP_TENANT, tool: "charge_card", olderThan: "1h", limit: 3 }, dryRun: false },
    mutation: { kind: "reconcile", keys: [] },
  }),
  () => get("/stuck", "page", "/stuck"),
  (t, i) => get("record detail", "api read", `/api/v1/records/${t.sample(i + 17)}`),
  () => get("/records", "page", "/records"),
  () => get("stuck list", "api read", "/api/v1/records?stuck=true&tool=charge_card"),
  (t, i) => get("/records/[key]", "page", `/records/${t.sample(i + 23)}`),
  () => get("audit list", "api read", "/api/v1/audit?action=record.complete"),
  () => get("/metrics", "page", "/metrics"),
  () => get("export (json)", "api export", "/api/v1/records/export?format=json&tenant=umbrella&tool=refund_charge"),
  () => get("/ (overview)", "page", "/"),
];
