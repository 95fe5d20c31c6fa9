import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { authenticateAccessToken, createAccessToken } from "@/lib/access-tokens";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { openTurnCheckout, type Actor } from "@/lib/harness";
import { createCairnMcpServer } from "@/lib/mcp";
import { harnessStorageFor, sqlFor } from "@/lib/sql-storage";
import { createPersistentDirsService, type PersistentDirsService } from "./dirs-service";
import { sqlForDb } from "@/lib/sql-storage/sql";

// Decision 0030, "Commit failures have a bound": a commit refused at the history quota is kept on
// Commit failures with its change set and base (~2 MB per refused 1 MB rewrite). Without a bound
// on what one owner's open records hold, a member who keeps writing past the quota still fills
// the disk, only through DirCommitRecord. With one, a refusal that would repeat is kept until the
// bound and then refused and not kept, said plainly at every door; transient failures and
// conflicts are kept whatever the bound.

const database = registerTestDatabase();
let service: PersistentDirsService;
let client: Client;
const member: Actor = { userId: "u-faillog", workspaceId: "w-faillog", role: "member" };
const OWNER = `user:${member.userId}`;
const USER = "/persistent/user";
const MIB = 1024 * 1024;
const BOUND = 10 * MIB;
const FILE = 1_000_000;
const big = (tag: number) => `${tag}\n`.padEnd(FILE, "x");
const HISTORY_FULL = /The history of \/persistent\/user is full: /;
const NOT_KEPT =
  /This change was not kept either: your Commit failures already hold \d+(\.\d)? MiB of changes waiting to be saved, and keeping this one would add 1\.9 MiB, past the limit of 10 MiB \(CAIRN_FAILED_COMMITS_MAX_BYTES\)\. .*resolve or discard the waiting ones on Files → Commit failures \(\/files\/failures\), then try again\./;

beforeAll(async () => {
  const db = database.db;
  await db.workspace.create({ data: { id: member.workspaceId, name: "Faillog" } });
  await db.user.create({ data: { id: member.userId, email: "f@example.com", name: "Member" } });
  await db.membership.create({
    data: { userId: member.userId, workspaceId: member.workspaceId, role: "member" },
  });
  service = createPersistentDirsService({
    sql: database.sql,
    history: { maxDirBytes: 5 * MIB, maxSharedBytes: 50 * MIB, retentionDays: 30 },
    failedCommitsMaxBytes: BOUND,
    // A transient failure on demand: the first store of a change to a path with "flaky" throws.
    faultInjection: { mode: "fail-first-commit", marker: "flaky" },
    faultInjectionSeen: new Set(),
  });
  const { token } = await createAccessToken(sqlForDb(db), {
    userId: member.userId,
    workspaceId: member.workspaceId,
    name: "laptop",
  });
  const identity = await authenticateAccessToken(sqlForDb(db), { token });
  const server = createCairnMcpServer({
    sql: sqlForDb(db),
    identity,
    dirs: service,
    harnessStorage: harnessStorageFor({ sql: database.sql }),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: "unit-test", version: "1.0.0" });
  await client.connect(clientSide);
});

afterAll(async () => {
  await client.close();
});

async function write(path: string, content: string): Promise<{ ok: boolean; text: string }> {
  const result = (await client.callTool({
    name: "memory",
    arguments: { command: "create", path: `${USER}/${path}`, file_text: content },
  })) as CallToolResult;
  const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  return { ok: result.isError !== true, text };
}

/** What the owner's open records hold, counted by the database itself from the stored text. */
async function storedOpenBytes(): Promise<{ bytes: number; records: number }> {
  const sql = sqlFor(database.target);
  const length = (column: string) =>
    sql.dialect === "postgres" ? `octet_length(${column})` : `length(CAST(${column} AS BLOB))`;
  const row = await sql.get<{ bytes: number | null; records: number }>(
    `SELECT SUM(${["changes", "base", "conflicts", `COALESCE("error", '')`, "extraBody", "session"]
      .map((column) => length(column.startsWith("COALESCE") ? column : `"${column}"`))
      .join(" + ")}) AS "bytes", COUNT(*) AS "records"
     FROM "DirCommitRecord" WHERE "owner" = ? AND "status" <> 'resolved'`,
    [OWNER],
  );
  return { bytes: Number(row?.bytes ?? 0), records: Number(row?.records ?? 0) };
}

describe(`a bound on Commit failures on ${testDatabaseProvider()}`, () => {
  it("40 MCP rewrites of a 1 MB file: stored, then refused and kept until the bound, then refused and not kept", async () => {
    const results = [];
    for (let rewrite = 0; rewrite < 40; rewrite += 1)
      results.push(await write("big.md", big(rewrite)));

    const stored = results.slice(0, 5);
    for (const result of stored)
      expect(result.text).toMatch(/\. Saved \/persistent\/user \(version/);
    // Each refused rewrite keeps ~2 MB (the new text and the base): five fit in 10 MiB.
    const kept = results.slice(5, 10);
    for (const result of kept) {
      expect(result.ok).toBe(false);
      expect(result.text).toMatch(/\. Not saved to \/persistent\/user yet: The history of /);
      expect(result.text).toMatch(/Nothing is lost: the change is kept as commit record /);
    }
    const dropped = results.slice(10);
    expect(dropped).toHaveLength(30);
    for (const result of dropped) {
      expect(result.ok).toBe(false);
      expect(result.text).toMatch(/\. Not saved to \/persistent\/user, and not kept: /);
      expect(result.text).toMatch(HISTORY_FULL);
      expect(result.text).toMatch(NOT_KEPT);
      expect(result.text).not.toMatch(/Nothing is lost/);
    }

    // The owner's open records stay under the bound, by the database's own count, and the
    // running sum the bound is checked against agrees with it.
    const open = await storedOpenBytes();
    expect(open.records).toBe(5);
    expect(open.bytes).toBeLessThanOrEqual(BOUND);
    expect(open.bytes).toBeGreaterThan(BOUND - 2.1 * MIB);
    expect(await service.commitLog.getOpenCommitBytes({ owner: OWNER })).toBe(open.bytes);
    // Nothing else of the 30 was written anywhere: every record of the owner is one of the five.
    const sql = sqlFor(database.target);
    const all = await sql.get<{ count: number }>(
      `SELECT COUNT(*) AS "count" FROM "DirCommitRecord" WHERE "owner" = ?`,
      [OWNER],
    );
    expect(Number(all?.count)).toBe(5);
    const failures = await service.listFailures({ actor: member, limit: 100 });
    expect(failures.failures).toHaveLength(5);
  }, 180_000);

  it("the Files editor says the edit was neither saved nor kept, and to copy the text", async () => {
    const opened = await service.readFile({ actor: member, harnessDir: USER, path: "big.md" });
    const result = await service.saveFile({
      actor: member,
      harnessDir: USER,
      path: "big.md",
      content: big(500),
      baseCursor: opened!.cursor,
      baseContent: opened!.text,
    });
    expect(result.status).toBe("failed");
    if (result.status !== "failed") return;
    expect(result.commitId).toBeNull();
    expect(result.message).toMatch(/^Saving failed: The history of \/persistent\/user is full: /);
    expect(result.message).toMatch(NOT_KEPT);
    expect(result.message).toMatch(/Copy your text before leaving this page\.$/);
    expect((await storedOpenBytes()).records).toBe(5);
  });

  it("a chat turn's commit is reported not kept, with no record and nothing left waiting", async () => {
    const turn = await openTurnCheckout({
      dirs: service.dirs,
      extraBody: { actor: member },
      session: { chatId: "c-faillog" },
      commitLog: service.commitLog,
      turnId: "t-faillog",
      retryPolicy: { maxAttempts: 6, baseDelayMs: 2_000, maxDelayMs: 60_000 },
    });
    turn.checkout.writeFile({ path: `${USER}/big.md`, content: big(600) });
    const persistence = await turn.finishTurn({ status: "completed" });
    expect(persistence.status).toBe("failed");
    if (persistence.status !== "failed") return;
    const [commit] = persistence.failedCommits;
    expect(commit).toMatchObject({ status: "failed", notKept: true });
    expect(commit!.commitId).toBeUndefined();
    expect(commit!.retrying).toBeUndefined();
    expect(commit!.unrecorded).toBeUndefined();
    expect(commit!.error?.message).toMatch(HISTORY_FULL);
    expect(commit!.error?.message).toMatch(NOT_KEPT);
    const { commits } = await service.commitLog.listCommits({ turnId: "t-faillog" });
    expect(commits).toHaveLength(0);
  });

  it("a transient failure and a conflict are kept past the bound: nothing lost", async () => {
    // A database-like failure of the store (fault injection), not a refusal: kept.
    const flaky = await write("flaky.md", big(700));
    expect(flaky.ok).toBe(false);
    expect(flaky.text).toMatch(/\. Not saved to \/persistent\/user yet: Injected failure/);
    expect(flaky.text).toMatch(/Nothing is lost: the change is kept as commit record /);
    // A conflict from the Files editor (the file changed since it was opened): kept.
    const conflict = await service.saveFile({
      actor: member,
      harnessDir: USER,
      path: "big.md",
      content: big(701),
      baseCursor: 1,
      baseContent: big(0),
    });
    expect(conflict.status).toBe("conflict");
    const open = await storedOpenBytes();
    expect(open.records).toBe(7);
    expect(open.bytes).toBeGreaterThan(BOUND);
    expect(await service.commitLog.getOpenCommitBytes({ owner: OWNER })).toBe(open.bytes);
  });

  it("resolving or discarding failed commits frees room: the next refusal is kept again", async () => {
    const failures = await service.listFailures({ actor: member, limit: 100 });
    // Resolving the conflict by keeping the newer version closes it: its bytes no longer count.
    const before = await storedOpenBytes();
    const conflict = failures.failures.find((failure) => failure.status === "conflict")!;
    const resolved = await service.resolveFailure({
      actor: member,
      id: conflict.id,
      resolution: "theirs",
    });
    expect(resolved.status).toBe("succeeded");
    const afterResolve = await storedOpenBytes();
    expect(afterResolve.records).toBe(before.records - 1);
    expect(afterResolve.bytes).toBeLessThan(before.bytes);
    expect(await service.commitLog.getOpenCommitBytes({ owner: OWNER })).toBe(afterResolve.bytes);
    // Discarding the rest empties the owner's Commit failures.
    for (const failure of failures.failures) {
      if (failure.id !== conflict.id)
        await service.discardFailure({ actor: member, id: failure.id });
    }
    expect(await storedOpenBytes()).toEqual({ bytes: 0, records: 0 });
    expect(await service.commitLog.getOpenCommitBytes({ owner: OWNER })).toBe(0);
    const again = await write("big.md", big(800));
    expect(again.text).toMatch(/\. Not saved to \/persistent\/user yet: The history of /);
    expect(again.text).toMatch(/Nothing is lost: the change is kept as commit record /);
    expect((await storedOpenBytes()).records).toBe(1);
  });
});
