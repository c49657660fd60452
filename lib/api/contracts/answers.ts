import type { ContractResponse } from "@/lib/api/contract";
import type { bulkApplyContract, bulkPlanContract, meContract } from "./operations";
import type {
  allowRepeatContract,
  checkArgumentsContract,
  checkRecordContract,
  listRecordsContract,
  recordDetailContract,
  resolveRecordContract,
  revealRecordContract,
} from "./records";
import type {
  toolsAddServerContract,
  toolsRefreshContract,
  toolsReviewContract,
  toolsUploadContract,
  toolsVerifyContract,
} from "./tools";

// The answers' types, inferred from the contracts' response schemas: a caller names these and
// never declares an answer's shape again.

export type MeAnswer = ContractResponse<typeof meContract>;
export type RecordsListAnswer = ContractResponse<typeof listRecordsContract>;
export type RecordDetailAnswer = ContractResponse<typeof recordDetailContract>;
export type RecordCheckAnswer = ContractResponse<typeof checkRecordContract>;
export type ArgumentsCheckAnswer = ContractResponse<typeof checkArgumentsContract>;
export type ResolveAnswer = ContractResponse<typeof resolveRecordContract>;
export type AllowRepeatAnswer = ContractResponse<typeof allowRepeatContract>;
export type RevealAnswer = ContractResponse<typeof revealRecordContract>;
export type BulkPlanAnswer = ContractResponse<typeof bulkPlanContract>;
export type BulkApplyAnswer = ContractResponse<typeof bulkApplyContract>;
export type ToolsRefreshAnswer = ContractResponse<typeof toolsRefreshContract>;
export type ToolsReviewAnswer = ContractResponse<typeof toolsReviewContract, 201>;
export type ToolsAddServerAnswer = ContractResponse<typeof toolsAddServerContract, 201>;
export type ToolsUploadAnswer = ContractResponse<typeof toolsUploadContract, 201>;
export type ToolsVerifyAnswer = ContractResponse<typeof toolsVerifyContract>;
