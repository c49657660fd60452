/** Axis labels in slate-600 (7.6:1 on white), not recharts' #666: small text needs 4.5:1 with room to spare. */
export const TICK = { fontSize: 11, fill: "#475569" };

/**
 * A line chart's category axis puts its first and last points on the plot's edges, so half of
 * a point (and all of a hovered one) was drawn past the right edge. This much room inside the axis
 * holds the largest point a metrics chart draws (the hovered point, r 5, and its stroke).
 */
export const POINT_ROOM_PX = 7;
export const LINE_X_PADDING = { left: POINT_ROOM_PX, right: POINT_ROOM_PX };

/** The charts' height: shorter on a phone, where three of them stand one under another. */
export const CHART_HEIGHT = "h-44 md:h-60";
