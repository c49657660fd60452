/** A size for people: 1,023 B, 250 kB, 2.5 MB (powers of 1024, one decimal past bytes). */
export function formatBytes(bytes: number): string {
  const units = ["B", "kB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toLocaleString("en", { maximumFractionDigits: unit === 0 ? 0 : 1 })} ${units[unit]}`;
}
