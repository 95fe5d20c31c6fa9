import { describe, expect, it } from "vitest";

import {
  DEFAULT_WORKSPACE_SETTINGS,
  dirLimitsOverServer,
  workspaceDirLimits,
  workspaceSettingsSchema,
} from "./workspace-settings";

const SERVER = { maxFiles: 100_000, maxDirBytes: 2 * 1024 ** 3, maxFileBytes: 25 * 1024 ** 2 };

describe("a workspace's dir limits (decision 0062)", () => {
  it("reads an empty field as the server's default and refuses what is not a positive whole number", () => {
    const parsed = workspaceSettingsSchema.parse({
      ...DEFAULT_WORKSPACE_SETTINGS,
      companyMaxFiles: "500",
      companyMaxBytes: "",
      memoryMaxFiles: null,
    });
    expect(parsed).toMatchObject({
      companyMaxFiles: 500,
      companyMaxBytes: null,
      memoryMaxFiles: null,
    });
    for (const [value, message] of [
      [
        "0",
        "Company knowledge's file count must be at least 1 (or empty for the server's default).",
      ],
      [
        "1.5",
        "Company knowledge's file count must be a whole number (or empty for the server's default).",
      ],
      [
        "many",
        "Company knowledge's file count must be a whole number (or empty for the server's default).",
      ],
    ] as const) {
      const result = workspaceSettingsSchema.safeParse({
        ...DEFAULT_WORKSPACE_SETTINGS,
        companyMaxFiles: value,
      });
      expect(result.success).toBe(false);
      expect(result.error?.issues.map((issue) => issue.message)).toEqual([message]);
    }
  });

  it("holds every limit to the server's, the ceiling, and says which ones pass it", () => {
    const saved = {
      companyMaxFiles: 10,
      companyMaxBytes: null,
      companyMaxFileBytes: 50 * 1024 ** 2,
      memoryMaxFiles: null,
      memoryMaxBytes: 1024,
      memoryMaxFileBytes: null,
    };
    expect(workspaceDirLimits({ saved, kind: "company", server: SERVER })).toEqual({
      maxFiles: 10,
      maxDirBytes: SERVER.maxDirBytes,
      maxFileBytes: SERVER.maxFileBytes,
    });
    expect(workspaceDirLimits({ saved, kind: "memory", server: SERVER })).toEqual({
      maxFiles: SERVER.maxFiles,
      maxDirBytes: 1024,
      maxFileBytes: SERVER.maxFileBytes,
    });
    expect(dirLimitsOverServer(saved, SERVER)).toEqual([
      "Company knowledge's size per file can be at most 26214400 (the server's CAIRN_DIR_MAX_FILE_BYTES); 52428800 was given.",
    ]);
  });
});
