import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { sqlForDb } from "@/lib/sql-storage/sql";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";

import { authenticateAccessToken, createAccessToken } from "@/lib/access-tokens";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { openTurnCheckout, type Actor } from "@/lib/harness";
import { createCairnMcpServer } from "@/lib/mcp";
import { harnessStorageFor, sqlFor } from "@/lib/sql-storage";
import { compactHistory } from "./history-compaction";
import { createPersistentDirsService, type PersistentDirsService } from "./dirs-service";
import { saveOverCurrent } from "./testing";

// Issue 31, finding 5: rewriting one 1 MB file 40 times added 43 MB of history. With a history
// quota (decision 0030) the write past it is refused at every door — the Files editor, a chat
// turn, MCP — in plain words, and kept as a failed commit.

const database = registerTestDatabase();
let service: PersistentDirsService;
const member: Actor = { userId: "u-member", workspaceId: "w-history", role: "member" };
const USER = "/persistent/user";
const MIB = 1024 * 1024;
const FILE = 1_000_000;
const big = (tag: number) => `${tag}\n`.padEnd(FILE, "x");
const FULL =
  /The history of \/persistent\/user is full: .* past the limit of 5 MiB per dir \(CAIRN_DIR_HISTORY_MAX_BYTES\)\./;

beforeAll(async () => {
  const db = database.db;
  await db.workspace.create({ data: { id: member.workspaceId, name: "History" } });
  await db.user.create({ data: { id: member.userId, email: "m@example.com", name: "Member" } });
  await db.membership.create({
    data: { userId: member.userId, workspaceId: member.workspaceId, role: "member" },
  });
  await db.chat.create({
    data: { id: "c-history", workspaceId: member.workspaceId, userId: member.userId, title: "c" },
  });
  service = createPersistentDirsService({
    sql: database.sql,
    history: { maxDirBytes: 5 * MIB, maxSharedBytes: 50 * MIB, retentionDays: 30 },
  });
});

async function save(path: string, content: string) {
  return saveOverCurrent(service, { actor: member, harnessDir: USER, path, content });
}

describe(`dir history quota at each door on ${testDatabaseProvider()}`, () => {
  it("the Files editor: 40 saves of a 1 MB file stop at the quota, each refusal said plainly and kept", async () => {
    const results = [];
    for (let rewrite = 0; rewrite < 40; rewrite += 1)
      results.push(await save("big.md", big(rewrite)));
    expect(results.filter((result) => result.status === "saved")).toHaveLength(5);
    const refused = results.slice(5);
    for (const result of refused) {
      expect(result.status).toBe("failed");
      if (result.status !== "failed") continue;
      expect(result.message).toMatch(/^Saving failed: The history of \/persistent\/user is full/);
      expect(result.message).toMatch(FULL);
      expect(result.message).toMatch(/Your edit was kept; retry it on the Commit failures page\.$/);
      expect(result.commitId).not.toBeNull();
    }
    // The history holds five versions; the 35 refused edits wait on Commit failures.
    const history = await service.listHistory({ actor: member, harnessDir: USER, limit: 100 });
    expect(history.commits).toHaveLength(5);
    const failures = await service.listFailures({ actor: member, limit: 100 });
    expect(failures.failures).toHaveLength(35);
    expect(failures.failures[0]!.error?.message).toMatch(FULL);
    expect(failures.failures[0]!.files[0]!.content?.text).toBe(big(39));
  }, 120_000);

  it("a chat turn: refused, not retried automatically, and the chat's line gives the reason", async () => {
    await database.db.turn.create({
      data: { id: "t-full", chatId: "c-history", userId: member.userId, status: "running" },
    });
    const turn = await openTurnCheckout({
      dirs: service.dirs,
      extraBody: { actor: member },
      session: { chatId: "c-history" },
      commitLog: service.commitLog,
      turnId: "t-full",
      retryPolicy: { maxAttempts: 6, baseDelayMs: 2_000, maxDelayMs: 60_000 },
    });
    turn.checkout.writeFile({ path: `${USER}/big.md`, content: big(100) });
    const persistence = await turn.finishTurn({ status: "completed" });
    expect(persistence.status).toBe("failed");
    const status = await service.turnSaveStatus({ actor: member, turnId: "t-full", spooled: 0 });
    expect(status).toMatchObject({ pending: 0, needsPerson: 1, conflicts: 0, canRetry: true });
    expect(status.refusal).toMatch(FULL);
  });

  it("an MCP write: the tool answers with the reason and where the change is kept", async () => {
    const { token } = await createAccessToken(sqlForDb(database.db), {
      userId: member.userId,
      workspaceId: member.workspaceId,
      name: "laptop",
    });
    const identity = await authenticateAccessToken(sqlForDb(database.db), { token });
    const server = createCairnMcpServer({
      sql: sqlForDb(database.db),
      identity,
      dirs: service,
      harnessStorage: harnessStorageFor({ sql: database.sql }),
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "unit-test", version: "1.0.0" });
    await client.connect(clientSide);
    const result = (await client.callTool({
      name: "memory",
      arguments: { command: "create", path: `${USER}/big.md`, file_text: big(200) },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
    expect(text).toMatch(
      /Not saved to \/persistent\/user yet: The history of \/persistent\/user is full/,
    );
    expect(text).toMatch(FULL);
    expect(text).toMatch(/Nothing is lost: the change is kept as commit record /);
    await client.close();
  });

  it("after compaction a kept version restores, a compacted one says its contents are gone, and retrying the refused edit saves it", async () => {
    // Age the first three versions past the window, as if 40 days had gone by.
    const sql = sqlFor(database.target);
    await sql.run(`UPDATE "DirCommit" SET "createdAt" = ? WHERE "dirKey" = ? AND "version" <= 3`, [
      new Date(Date.now() - 40 * 86_400_000),
      `user:${member.userId}`,
    ]);
    const report = await compactHistory({ sql, settings: { retentionDays: 30 } });
    expect(report.rowsCompacted).toBe(2);
    expect(report.bytesFreed).toBeGreaterThan(2 * FILE);

    const history = await service.listHistory({ actor: member, harnessDir: USER, limit: 100 });
    const byVersion = new Map(history.commits.map((commit) => [commit.version, commit.id]));
    const compacted = await service.readCommit({
      actor: member,
      harnessDir: USER,
      id: byVersion.get(2)!,
    });
    expect(compacted!.files[0]!.after).toEqual({ state: "compacted" });
    const refusedRestore = await service.restoreCommit({
      actor: member,
      harnessDir: USER,
      id: byVersion.get(2)!,
    });
    expect(refusedRestore).toEqual({
      status: "refused",
      message:
        "Version 2 cannot be restored: its content of big.md is no longer kept (versions older than the history's retention window are compacted; who changed which files, and when, is kept).",
    });
    // A refused edit kept on Commit failures now fits in what compaction freed.
    const failures = await service.listFailures({ actor: member, limit: 100 });
    const retried = await service.retryFailure({ actor: member, id: failures.failures[0]!.id });
    expect(retried.status).toBe("succeeded");
    // Version 3 is what version 4 diffs against: kept, and restorable.
    const kept = await service.readCommit({
      actor: member,
      harnessDir: USER,
      id: byVersion.get(4)!,
    });
    expect(kept!.files[0]!.before).toEqual({ state: "text", text: big(2) });
    const restored = await service.restoreCommit({
      actor: member,
      harnessDir: USER,
      id: byVersion.get(3)!,
    });
    expect(restored).toMatchObject({ status: "restored", changed: true });
    expect(
      (await service.readFile({ actor: member, harnessDir: USER, path: "big.md" }))?.text,
    ).toBe(big(2));
  });
});
