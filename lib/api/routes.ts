/**
 * Every /api/v1 route's method and path, spelled once: each contract (lib/api/contracts) spreads
 * its entry, and the browser's client (components/ui/api-client.ts) builds URLs from it without
 * loading the contracts, whose parsers are server code.
 */
export const API_ROUTES = {
  auditList: { method: "GET", path: "/api/v1/audit" },
  bulkApply: { method: "POST", path: "/api/v1/bulk/apply" },
  bulkPlan: { method: "POST", path: "/api/v1/bulk/plan" },
  duplicates: { method: "GET", path: "/api/v1/duplicates" },
  explainKey: { method: "GET", path: "/api/v1/keys/explain" },
  lookup: { method: "GET", path: "/api/v1/lookup" },
  me: { method: "GET", path: "/api/v1/me" },
  metrics: { method: "GET", path: "/api/v1/metrics" },
  prometheusScrape: { method: "GET", path: "/api/v1/metrics/prometheus" },
  openapi: { method: "GET", path: "/api/v1/openapi.json" },
  reconcile: { method: "POST", path: "/api/v1/reconcile" },
  listRecords: { method: "GET", path: "/api/v1/records" },
  exportRecords: { method: "GET", path: "/api/v1/records/export" },
  recordDetail: { method: "GET", path: "/api/v1/records/{key}" },
  allowRepeat: { method: "POST", path: "/api/v1/records/{key}/allow-repeat" },
  checkRecord: { method: "POST", path: "/api/v1/records/{key}/check" },
  checkArguments: { method: "POST", path: "/api/v1/records/{key}/check-arguments" },
  resolveRecord: { method: "POST", path: "/api/v1/records/{key}/resolve" },
  revealRecord: { method: "POST", path: "/api/v1/records/{key}/reveal" },
  toolsAudit: { method: "GET", path: "/api/v1/tools/audit" },
  toolsAuditExport: { method: "GET", path: "/api/v1/tools/audit/export" },
  toolsRefresh: { method: "POST", path: "/api/v1/tools/refresh" },
  toolsReview: { method: "POST", path: "/api/v1/tools/reviews" },
  toolsAddServer: { method: "POST", path: "/api/v1/tools/servers" },
  toolsUpload: { method: "POST", path: "/api/v1/tools/upload" },
  toolsVerify: { method: "POST", path: "/api/v1/tools/verifications" },
} as const;

export type ApiRoute = (typeof API_ROUTES)[keyof typeof API_ROUTES];
