import { DEFAULT_KEY_WINDOW_MS, type IdemConfig } from "@/lib/config/schema";

/** Each tool's time bucket in seconds (the config's `window`, else 900) and the tools keyed by a business key. */
export function duplicateWindows(config: Pick<IdemConfig, "tools">): {
  windows: Record<string, number>;
  defaultWindowSeconds: number;
  businessKeyTools: string[];
} {
  const windows: Record<string, number> = {};
  const businessKeyTools: string[] = [];
  for (const [tool, settings] of Object.entries(config.tools)) {
    if (settings.window !== undefined) windows[tool] = settings.window / 1000;
    if (settings.businessKey) businessKeyTools.push(tool);
  }
  return { windows, defaultWindowSeconds: DEFAULT_KEY_WINDOW_MS / 1000, businessKeyTools };
}
