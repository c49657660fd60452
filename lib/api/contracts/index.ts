import type { RouteContract } from "@/lib/api/contract";
import { duplicatesContract } from "./duplicates";
import { openapiContract } from "./openapi";
import {
  auditListContract,
  bulkApplyContract,
  bulkPlanContract,
  meContract,
  metricsContract,
  prometheusScrapeContract,
  reconcileContract,
} from "./operations";
import {
  allowRepeatContract,
  checkArgumentsContract,
  checkRecordContract,
  explainKeyContract,
  exportRecordsContract,
  listRecordsContract,
  lookupContract,
  recordDetailContract,
  resolveRecordContract,
  revealRecordContract,
} from "./records";
import {
  toolsAddServerContract,
  toolsAuditContract,
  toolsAuditExportContract,
  toolsRefreshContract,
  toolsReviewContract,
  toolsUploadContract,
  toolsVerifyContract,
} from "./tools";

/** Every /api/v1 route's contract: the OpenAPI document and the contract test read this list. */
export const API_CONTRACTS: readonly RouteContract[] = [
  meContract,
  openapiContract,
  listRecordsContract,
  exportRecordsContract,
  recordDetailContract,
  checkRecordContract,
  checkArgumentsContract,
  resolveRecordContract,
  revealRecordContract,
  lookupContract,
  explainKeyContract,
  auditListContract,
  metricsContract,
  duplicatesContract,
  prometheusScrapeContract,
  bulkPlanContract,
  bulkApplyContract,
  reconcileContract,
  toolsAuditContract,
  toolsAuditExportContract,
  toolsRefreshContract,
  toolsReviewContract,
  toolsAddServerContract,
  toolsUploadContract,
  toolsVerifyContract,
  // Last: its example deletes the examples' record.
  allowRepeatContract,
];
