import { unmatchedApiPath } from "@/lib/api/unmatched-path";

// Every path under /api/v1 that no other route file matches (docs/api.md, "What never reaches a route").
export const GET = unmatchedApiPath;
export const POST = unmatchedApiPath;
export const PUT = unmatchedApiPath;
export const PATCH = unmatchedApiPath;
export const DELETE = unmatchedApiPath;
export const OPTIONS = unmatchedApiPath;
