import { describe, expect, it } from "vitest";
import { fileNameOf } from "@/components/ui/download-link";
import { formatBytes } from "@/lib/format/bytes";

describe("the download link's helpers", () => {
  it("takes the file name from the API's Content-Disposition, or none", () => {
    expect(fileNameOf('attachment; filename="idem-records-acme-20261204T1700Z.csv"')).toBe(
      "idem-records-acme-20261204T1700Z.csv",
    );
    expect(fileNameOf("attachment")).toBeNull();
    expect(fileNameOf(null)).toBeNull();
  });

  it("says how much arrived in bytes, kB or MB", () => {
    expect(formatBytes(0)).toBe("0 B");
    expect(formatBytes(1023)).toBe("1,023 B");
    expect(formatBytes(250 * 1024)).toBe("250 kB");
    expect(formatBytes(1536 * 1024 * 1024)).toBe("1.5 GB");
    expect(formatBytes(2.45 * 1024 * 1024)).toBe("2.5 MB");
  });
});
