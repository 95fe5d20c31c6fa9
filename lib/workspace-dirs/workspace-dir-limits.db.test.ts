import { beforeAll, describe, expect, it } from "vitest";

import { findChatForTurn } from "@/lib/chat/queries";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { openTurnCheckout, type Actor } from "@/lib/harness";
import {
  DEFAULT_WORKSPACE_SETTINGS,
  getWorkspaceSettings,
  saveWorkspaceSettings,
  type WorkspaceSettingsValues,
} from "@/lib/workspace-settings";
import { createPersistentDirsService, type PersistentDirsService } from "./dirs-service";
import { saveOverCurrent } from "./testing";
import {
  createWorkspaceDirLimitsCache,
  type WorkspaceDirLimitsCache,
} from "./workspace-dir-limits";

// Issue 23, item 4 (decision 0062): each workspace sets its own dir limits on Admin → Settings,
// within the server's; a turn, an edit and a retry are held to the limits of the Actor's workspace.

const database = registerTestDatabase();
const SERVER = { maxFiles: 10, maxDirBytes: 4 * 1024 ** 3, maxFileBytes: 1000 };
const tightEditor: Actor = { userId: "u-both", workspaceId: "w-tight", role: "editor" };
const roomyEditor: Actor = { userId: "u-both", workspaceId: "w-roomy", role: "editor" };
let service: PersistentDirsService;
let cache: WorkspaceDirLimitsCache;

const tightSettings: WorkspaceSettingsValues = {
  ...DEFAULT_WORKSPACE_SETTINGS,
  companyMaxFiles: 2,
  // Over 2^31: the byte columns are BIGINT on PostgreSQL.
  companyMaxBytes: 3 * 1024 ** 3,
  companyMaxFileBytes: 100,
  memoryMaxFiles: 1,
  memoryMaxBytes: null,
  memoryMaxFileBytes: null,
};

beforeAll(async () => {
  const db = database.db;
  for (const workspaceId of ["w-tight", "w-roomy"])
    await db.workspace.create({ data: { id: workspaceId, name: workspaceId } });
  await db.user.create({ data: { id: "u-both", email: "both@example.com", name: "Both" } });
  for (const workspaceId of ["w-tight", "w-roomy"])
    await db.membership.create({ data: { userId: "u-both", workspaceId, role: "editor" } });
  await db.chat.create({
    data: { id: "c-tight", workspaceId: "w-tight", userId: "u-both", title: "c" },
  });
  await saveWorkspaceSettings(database.sql, "w-tight", tightSettings);
  cache = createWorkspaceDirLimitsCache({ sql: () => database.sql });
  service = createPersistentDirsService({
    sql: database.sql,
    limits: SERVER,
    workspaceLimits: cache,
  });
});

async function turnWriting(actor: Actor, paths: string[]) {
  const turn = await openTurnCheckout({
    dirs: service.dirs,
    extraBody: { actor },
    session: null,
    commitLog: service.commitLog,
  });
  const refusals: string[] = [];
  for (const path of paths) {
    try {
      turn.checkout.writeFile({ path, content: "x" });
    } catch (error) {
      refusals.push((error as Error).message);
    }
  }
  const persistence = await turn.finishTurn({ status: "completed" });
  return { refusals, persistence };
}

describe(`dir limits per workspace on ${testDatabaseProvider()}`, () => {
  it("round-trips the six limits through the settings and the chat's settings", async () => {
    const saved = await getWorkspaceSettings(database.sql, "w-tight");
    expect(saved).toEqual(tightSettings);
    const chat = await findChatForTurn(database.sql, {
      chatId: "c-tight",
      userId: "u-both",
      workspaceId: "w-tight",
    });
    expect(chat?.settings).toEqual(tightSettings);
    // No row: every limit is the server's (null).
    expect(await getWorkspaceSettings(database.sql, "w-roomy")).toEqual(DEFAULT_WORKSPACE_SETTINGS);
  });

  it("refuses a turn's write at the workspace's lower limit with the clear error, and not in another workspace", async () => {
    const tight = await turnWriting(tightEditor, [
      "/persistent/company/a.md",
      "/persistent/company/b.md",
      "/persistent/company/c.md",
      "/persistent/user/one.md",
      "/persistent/user/two.md",
    ]);
    expect(tight.refusals).toEqual([
      "/persistent/company would hold 3 files; the limit is 2 files per dir.",
      "/persistent/user would hold 2 files; the limit is 1 file per dir.",
    ]);
    expect(tight.persistence.status).toBe("succeeded");

    // The same person's memory in the other workspace has the server's limits.
    const roomy = await turnWriting(roomyEditor, [
      "/persistent/company/a.md",
      "/persistent/company/b.md",
      "/persistent/company/c.md",
      "/persistent/user/two.md",
      "/persistent/user/three.md",
    ]);
    expect(roomy.refusals).toEqual([]);
    expect(roomy.persistence.status).toBe("succeeded");

    // Back in the tight workspace the memory (3 files, over its limit of 1) still opens and can
    // shrink; it cannot grow.
    const again = await turnWriting(tightEditor, ["/persistent/user/four.md"]);
    expect(again.refusals).toEqual([
      "/persistent/user would hold 4 files; the limit is 1 file per dir.",
    ]);
  });

  it("tells the Files page the limits its saves meet: the workspace's, within the server's", async () => {
    await expect(
      service.limitsFor({ actor: tightEditor, harnessDir: "/persistent/company" }),
    ).resolves.toEqual({ maxFiles: 2, maxDirBytes: 3 * 1024 ** 3, maxFileBytes: 100 });
    await expect(
      service.limitsFor({ actor: tightEditor, harnessDir: "/persistent/user" }),
    ).resolves.toEqual({ ...SERVER, maxFiles: 1 });
    await expect(
      service.limitsFor({ actor: roomyEditor, harnessDir: "/persistent/company" }),
    ).resolves.toEqual(SERVER);
  });

  it("refuses a Files edit over the workspace's per-file limit and keeps one over its file count", async () => {
    await expect(
      saveOverCurrent(service, {
        actor: tightEditor,
        harnessDir: "/persistent/company",
        path: "big.md",
        content: "x".repeat(101),
      }),
    ).rejects.toThrow(`File "big.md" is 101 B; the limit is 100 B per file.`);
    const refused = await saveOverCurrent(service, {
      actor: tightEditor,
      harnessDir: "/persistent/company",
      path: "c.md",
      content: "x",
    });
    expect(refused).toMatchObject({
      status: "failed",
      message:
        "Saving failed: /persistent/company would hold 3 files; the limit is 2 files per dir. Your edit was kept; retry it on the Commit failures page.",
    });
    expect(refused.status === "failed" && refused.commitId).toBeTruthy();
  });

  it("uses a save at once on this instance, held to the server's limits", async () => {
    await saveWorkspaceSettings(database.sql, "w-roomy", {
      ...DEFAULT_WORKSPACE_SETTINGS,
      companyMaxFiles: 4,
      // Above the server's 1000: the server's is the ceiling.
      companyMaxFileBytes: 5000,
    });
    cache.remember("w-roomy", {
      companyMaxFiles: 4,
      companyMaxBytes: null,
      companyMaxFileBytes: 5000,
      memoryMaxFiles: null,
      memoryMaxBytes: null,
      memoryMaxFileBytes: null,
    });
    const turn = await openTurnCheckout({
      dirs: service.dirs,
      extraBody: { actor: roomyEditor },
      session: null,
      commitLog: service.commitLog,
    });
    expect(turn.checkout.assertWritable({ path: "/persistent/company/d.md" }).limits).toEqual({
      maxFiles: 4,
      maxDirBytes: SERVER.maxDirBytes,
      maxFileBytes: 1000,
    });
    turn.checkout.writeFile({ path: "/persistent/company/d.md", content: "x" });
    expect(() =>
      turn.checkout.writeFile({ path: "/persistent/company/e.md", content: "x" }),
    ).toThrow("/persistent/company would hold 5 files; the limit is 4 files per dir.");
    expect((await turn.finishTurn({ status: "completed" })).status).toBe("succeeded");
  });
});
