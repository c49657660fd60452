/**
 * A plan asks the processor once per row: bounded so one click cannot fire thousands of requests.
 * Its own module (no server code) so the Stuck page's buttons can name the bound.
 */
export const BULK_PLAN_MAX_ROWS = 500;
