/**
 * A row's version for compare-and-set: its updated_at at full microsecond precision, as text.
 * A JavaScript Date keeps milliseconds only, so a version round-tripped through one would never
 * match a writer's now(); null is the version of a claim no one has touched since the INSERT.
 */
export const ROW_VERSION_SQL = `to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export const ROW_VERSION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
