import type { bulkApplyContract, bulkPlanContract } from "@/lib/api/contracts/operations";
import type {
  allowRepeatContract,
  checkArgumentsContract,
  checkRecordContract,
  exportRecordsContract,
  resolveRecordContract,
  revealRecordContract,
} from "@/lib/api/contracts/records";
import type {
  toolsAddServerContract,
  toolsAuditExportContract,
  toolsRefreshContract,
  toolsReviewContract,
  toolsUploadContract,
  toolsVerifyContract,
} from "@/lib/api/contracts/tools";
import { API_ROUTES } from "@/lib/api/routes";
import { endpoint } from "@/components/ui/api-client";

/**
 * The routes the console's pages call, each typed with its contract: a route given the wrong
 * contract does not compile (its method and path must be the contract's).
 */
export const api = {
  allowRepeat: endpoint<typeof allowRepeatContract>(API_ROUTES.allowRepeat),
  bulkApply: endpoint<typeof bulkApplyContract>(API_ROUTES.bulkApply),
  bulkPlan: endpoint<typeof bulkPlanContract>(API_ROUTES.bulkPlan),
  checkArguments: endpoint<typeof checkArgumentsContract>(API_ROUTES.checkArguments),
  checkRecord: endpoint<typeof checkRecordContract>(API_ROUTES.checkRecord),
  exportRecords: endpoint<typeof exportRecordsContract>(API_ROUTES.exportRecords),
  resolveRecord: endpoint<typeof resolveRecordContract>(API_ROUTES.resolveRecord),
  revealRecord: endpoint<typeof revealRecordContract>(API_ROUTES.revealRecord),
  toolsAddServer: endpoint<typeof toolsAddServerContract>(API_ROUTES.toolsAddServer),
  toolsAuditExport: endpoint<typeof toolsAuditExportContract>(API_ROUTES.toolsAuditExport),
  toolsRefresh: endpoint<typeof toolsRefreshContract>(API_ROUTES.toolsRefresh),
  toolsReview: endpoint<typeof toolsReviewContract>(API_ROUTES.toolsReview),
  toolsUpload: endpoint<typeof toolsUploadContract>(API_ROUTES.toolsUpload),
  toolsVerify: endpoint<typeof toolsVerifyContract>(API_ROUTES.toolsVerify),
};
