import nodePath from "node:path";

import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { HarnessError, HarnessNotFoundError, HarnessValidationError } from "../errors";
import { loadCheckout } from "./load-checkout";
import { createInMemoryDirBacking } from "./in-memory-dir-backing";
import {
  assertDirWithinLimits,
  assertFileWithinLimits,
  DEFAULT_DIR_LIMITS,
  resolvePersistentPath,
  validateHarnessDir,
  validateRelativePath,
} from "./paths";

const dirs = ["/persistent/user", "/persistent/company"];

describe("validateRelativePath", () => {
  it("accepts ordinary paths and normalises Unicode to NFC", () => {
    expect(validateRelativePath({ path: "notes/a.md" })).toBe("notes/a.md");
    expect(validateRelativePath({ path: "cafe\u0301.md" })).toBe("caf\u00e9.md");
    expect(validateRelativePath({ path: "with space/..hidden/x..y" })).toBe(
      "with space/..hidden/x..y",
    );
  });

  it.each([
    ["", "empty"],
    ["..", '".."'],
    ["a/../../etc/passwd", '".."'],
    ["./a", '"."'],
    ["a//b", "empty segment"],
    ["a/", "empty segment"],
    ["/etc/passwd", "relative"],
    ["a\\..\\b", "backslash"],
    ["a\u0000b", "control"],
    ["a\nb", "control"],
    ["a\u0085b", "control"],
    ["evil\u202eexe.md", "invisible"],
    ["zero\u200bwidth", "invisible"],
    ["bad\ud800", "surrogate"],
    [`${"a".repeat(256)}.md`, "255 bytes"],
    [Array.from({ length: 120 }, () => "abcd").join("/"), "512 bytes"],
    [Array.from({ length: 40 }, () => "a").join("/"), "deeper"],
    [".cairn-tmp-123", "reserved"],
  ])("rejects %j (%s)", (path, fragment) => {
    expect(() => validateRelativePath({ path })).toThrowError(HarnessValidationError);
    expect(() => validateRelativePath({ path })).toThrowError(
      new RegExp(fragment.replace(/[.*+?^${}()|[\]\\"]/g, "\\$&"), "i"),
    );
  });

  it("rejects non-strings with a validation error", () => {
    expect(() => validateRelativePath({ path: 42 })).toThrowError(HarnessValidationError);
    expect(() => validateRelativePath({ path: null })).toThrowError(HarnessValidationError);
  });
});

describe("validateHarnessDir", () => {
  it("accepts dirs under /persistent/", () => {
    expect(validateHarnessDir({ harnessDir: "/persistent/user" })).toBe("/persistent/user");
    expect(validateHarnessDir({ harnessDir: "/persistent/team/docs" })).toBe(
      "/persistent/team/docs",
    );
  });
  it.each([
    "/persistent",
    "/persistent/",
    "/tmp/user",
    "persistent/user",
    "/persistent/user/",
    "/persistent/../etc",
    "/persistentx/user",
  ])("rejects %j", (harnessDir) => {
    expect(() => validateHarnessDir({ harnessDir })).toThrowError(HarnessValidationError);
  });
});

describe("resolvePersistentPath", () => {
  it("maps an absolute path to its dir and relative path", () => {
    expect(
      resolvePersistentPath({ path: "/persistent/user/notes/a.md", harnessDirs: dirs }),
    ).toEqual({
      harnessDir: "/persistent/user",
      relativePath: "notes/a.md",
      path: "/persistent/user/notes/a.md",
    });
  });
  it("matches whole segments only", () => {
    expect(() =>
      resolvePersistentPath({ path: "/persistent/username/a.md", harnessDirs: dirs }),
    ).toThrowError(HarnessNotFoundError);
  });
  it("rejects the dir root, relative paths and traversal", () => {
    expect(() =>
      resolvePersistentPath({ path: "/persistent/user", harnessDirs: dirs }),
    ).toThrowError(/not a file/);
    expect(() => resolvePersistentPath({ path: "notes/a.md", harnessDirs: dirs })).toThrowError(
      /absolute/,
    );
    expect(() =>
      resolvePersistentPath({ path: "/persistent/user/../company/a.md", harnessDirs: dirs }),
    ).toThrowError(HarnessValidationError);
  });
});

describe("size limits", () => {
  it("default to a knowledge base: 100,000 files, 2 GiB per dir, 25 MiB per file", () => {
    expect(DEFAULT_DIR_LIMITS).toEqual({
      maxFiles: 100_000,
      maxDirBytes: 2 * 1024 * 1024 * 1024,
      maxFileBytes: 25 * 1024 * 1024,
    });
  });

  it("explain which limit was hit", () => {
    expect(() =>
      assertFileWithinLimits({
        path: "/persistent/user/big.bin",
        bytes: 26 * 1024 * 1024,
        limits: DEFAULT_DIR_LIMITS,
      }),
    ).toThrowError(/big\.bin.* is 26 MiB; the limit is 25 MiB per file/);
    expect(() =>
      assertDirWithinLimits({
        harnessDir: "/persistent/user",
        fileCount: 100_001,
        bytes: 10,
        limits: DEFAULT_DIR_LIMITS,
      }),
    ).toThrowError(/100001 files; the limit is 100000/);
    expect(() =>
      assertDirWithinLimits({
        harnessDir: "/persistent/user",
        fileCount: 1,
        bytes: 21 * 1024 * 1024,
        limits: { ...DEFAULT_DIR_LIMITS, maxDirBytes: 20 * 1024 * 1024 },
      }),
    ).toThrowError(/21 MiB; the limit is 20 MiB per dir/);
  });
});

// Fragments that attackers combine: traversal, separators, encodings, look-alikes, controls.
const hostileFragments = [
  "..",
  ".",
  "/",
  "//",
  "\\",
  "\0",
  "\n",
  "\r",
  "\t",
  "\u007f",
  "\u0085",
  "%2e%2e",
  "%2f",
  "..%2f",
  "\u2215",
  "\u2044",
  "\uff0e\uff0e",
  "\uff0f",
  "\u202e",
  "\u200b",
  "\ufeff",
  "e\u0301",
  "\u00e9",
  "\ud800",
  "~",
  "$HOME",
  "C:",
  "C:\\",
  "//server/share",
  "/persistent",
  "/persistent/user",
  "/persistent/company",
  "/persistent/username",
  "/etc/passwd",
  "__proto__",
  "constructor",
  ".cairn-tmp-x",
  " ",
  "a",
  "notes",
  "x".repeat(300),
];
const hostilePath = fc.oneof(
  fc
    .array(fc.constantFrom(...hostileFragments), { minLength: 1, maxLength: 12 })
    .map((parts) => parts.join("")),
  fc
    .array(
      fc.oneof(fc.constantFrom(...hostileFragments), fc.string({ unit: "binary", maxLength: 8 })),
      { minLength: 1, maxLength: 8 },
    )
    .map((parts) => parts.join("/")),
  fc.string({ unit: "binary", maxLength: 40 }).map((tail) => `/persistent/user/${tail}`),
  fc.string({ unit: "grapheme", maxLength: 40 }),
);

function assertContained(result: { harnessDir: string; relativePath: string; path: string }): void {
  expect(dirs).toContain(result.harnessDir);
  expect(result.path.startsWith(`${result.harnessDir}/`)).toBe(true);
  expect(nodePath.posix.normalize(result.path)).toBe(result.path);
  expect(nodePath.posix.resolve("/", result.path).startsWith(`${result.harnessDir}/`)).toBe(true);
  const root = "/srv/cairn/dir";
  const onDisk = nodePath.join(root, ...result.relativePath.split("/"));
  expect(onDisk.startsWith(`${root}${nodePath.sep}`)).toBe(true);
  expect(nodePath.win32.normalize(result.relativePath).split("\\")).not.toContain("..");
  expect(result.relativePath.split("/")).not.toContain("..");
  expect(/[\u0000-\u001f\u007f-\u009f\\]/.test(result.path)).toBe(false);
  expect(result.path).toBe(result.path.normalize("NFC"));
  expect(Buffer.byteLength(result.path)).toBeLessThanOrEqual(512);
}

describe("path fuzzing", () => {
  it("never lets a hostile absolute path escape its dir (5,000 paths)", () => {
    let accepted = 0;
    fc.assert(
      fc.property(hostilePath, (path) => {
        try {
          const result = resolvePersistentPath({ path, harnessDirs: dirs });
          accepted += 1;
          assertContained(result);
        } catch (error) {
          // Only typed core errors, never a crash.
          expect(HarnessError.isInstance(error)).toBe(true);
        }
      }),
      { numRuns: 5000, seed: 4242 },
    );
    expect(accepted).toBeGreaterThan(0);
  });

  it("never lets a hostile relative path escape (5,000 paths)", () => {
    fc.assert(
      fc.property(hostilePath, (path) => {
        try {
          const relativePath = validateRelativePath({ path });
          assertContained({
            harnessDir: "/persistent/user",
            relativePath,
            path: `/persistent/user/${relativePath}`,
          });
        } catch (error) {
          expect(HarnessError.isInstance(error)).toBe(true);
        }
      }),
      { numRuns: 5000, seed: 7 },
    );
  });

  it("keeps every checkout write inside a writable dir (2,000 writes)", async () => {
    const user = createInMemoryDirBacking();
    const company = createInMemoryDirBacking();
    const checkout = await loadCheckout({
      dirs: [
        { harnessDir: "/persistent/user", ...user },
        { harnessDir: "/persistent/company", commit: "read-only", load: company.load },
      ],
      extraBody: {},
      session: {},
    });
    fc.assert(
      fc.property(hostilePath, (path) => {
        try {
          checkout.writeFile({ path, content: "x" });
        } catch (error) {
          expect(HarnessError.isInstance(error)).toBe(true);
        }
      }),
      { numRuns: 2000, seed: 99 },
    );
    for (const file of checkout.listFiles()) {
      expect(file.harnessDir).toBe("/persistent/user");
      assertContained(file);
    }
    expect(checkout.listFiles({ path: "/persistent/company" })).toEqual([]);
  });
});
