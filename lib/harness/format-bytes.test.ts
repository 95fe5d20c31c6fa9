import { describe, expect, it } from "vitest";
import { formatBytes } from "./format-bytes";

describe("formatBytes", () => {
  it.each([
    [0, "0 B"],
    [1, "1 B"],
    [1023, "1023 B"],
    [1024, "1 KiB"],
    [1536, "1.5 KiB"],
    [100_000, "97.7 KiB"],
    [1_048_575, "1 MiB"],
    [25 * 1024 * 1024, "25 MiB"],
    [26 * 1024 * 1024 + 1, "26 MiB"],
    [5_000_000, "4.8 MiB"],
    [2 * 1024 ** 3, "2 GiB"],
    [3 * 1024 ** 4, "3 TiB"],
    [5000 * 1024 ** 4, "5000 TiB"],
  ])("%d bytes read as %s", (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});
