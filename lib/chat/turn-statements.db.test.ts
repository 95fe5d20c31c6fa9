// How many SQL statements and transactions one chat turn runs, end to end from the route
// (issue 12): counted with the SQL layer's `observeSql`, on SQLite and on PostgreSQL. A change
// that adds a statement to every turn fails here; lower MAX_STATEMENTS_PER_TURN when one goes.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, describe, expect, it, vi } from "vitest";
import { registerAppTestWorld } from "@/lib/accounts/testing";
import type * as AiModule from "@/lib/ai";
import { streamOf, textReply, toolCallReply } from "@/lib/harness/testing";
import type * as AuthModule from "@/lib/auth/auth";
import type { TestSignIn } from "@/lib/auth/testing";
import { pgPool } from "@/lib/db/connections";
import { testDatabaseProvider } from "@/lib/db/testing";
import { observeSql, type SqlStatementEvent } from "@/lib/sql-storage/sql";
vi.mock("server-only", () => ({}));

// The signed-in person: `getActor` reads the session from the cookie (mocked Auth.js decode)
// and the membership from the database, as on every request.
const session = vi.hoisted((): TestSignIn => ({ current: null }));
vi.mock("next/headers", async () =>
  (await import("@/lib/auth/testing")).sessionCookieHeaders(session),
);
vi.mock("@/lib/auth/auth", async (importOriginal) => {
  const { authSignedInAs } = await import("@/lib/auth/testing");
  return authSignedInAs(await importOriginal<typeof AuthModule>(), session);
});

// The bench's medium turn (bench/chat-route.ts): the model creates one memory file, then answers.
let turnNumber = 0;
const model = new MockLanguageModelV4({
  doStream: async ({ prompt }) =>
    streamOf(
      prompt.at(-1)?.role === "tool"
        ? textReply(`Noted ${turnNumber}.`)
        : toolCallReply(
            "memory",
            {
              command: "create",
              path: `/persistent/user/note-${turnNumber}.md`,
              file_text: `Note ${turnNumber}\n`,
            },
            `call-${turnNumber}`,
          ),
    ),
});

vi.mock("@/lib/ai", async (importOriginal) => {
  const { chatModelOnly } = await import("@/lib/ai/testing");
  return chatModelOnly(await importOriginal<typeof AiModule>(), model);
});

interface Counted {
  statements: SqlStatementEvent[];
  transactions: number;
}

/** Sends one chat message through `POST /api/chat` and waits until the turn is recorded. */
async function countOneTurn(userId: string, chatId: string, text: string): Promise<Counted> {
  const { POST } = await import("@/app/api/chat/route");
  const { userTurnSlots } = await import("./turn-slots");
  const statements: SqlStatementEvent[] = [];
  const stop = observeSql((event) => statements.push(event));
  try {
    turnNumber += 1;
    const response = await POST(
      new Request("http://localhost/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          chatId,
          message: { id: `m-${turnNumber}`, role: "user", parts: [{ type: "text", text }] },
        }),
      }),
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toContain(`Noted ${turnNumber}.`);
    // The slot is held until the turn is recorded and its after-response work has run.
    await vi.waitFor(() => expect(userTurnSlots().running(userId)).toBe(0), {
      timeout: 20_000,
      interval: 5,
    });
  } finally {
    stop();
  }
  return {
    statements,
    transactions: statements.filter((event) => /^BEGIN/.test(event.text)).length,
  };
}

/**
 * The most statements one ordinary turn may run, once the process is warm (the medium turn of
 * bench/chat-route.ts: the model creates one memory file, then answers). Per turn, in order:
 *
 *  1. getActor: the membership and session version (read on every request, on purpose)
 *  2. findChatForTurn: the chat (ownership) and its workspace's settings
 *  3. claimChat: the conditional UPSERT of the chat's ChatTurnClaim
 *  4. appendNewMessage: the user's message (INSERT … SELECT MAX(seq) + 1)
 *  5. loadTurnHistory: the chat's compaction state and its messages, in one statement
 *  6. insertRunningTurn: the Turn row, with its lease
 *  7. the prompt's relevant passages (issue 24, decision 0063): one statement counting the
 *     message's words among the passages the person may see; when a word is distinctive, a second
 *     reads the passages it chooses (not in this turn: its words are in no file)
 *  8. the user and company dirs' versions, in one statement (they validate the dir snapshot cache)
 *  9. the harness counter (the snapshot cache is validated by it)
 * 10. listRecentRefinements (for the prompt)
 * 11. the turn journal's checkpoint of the tool's change (durable before the commit)
 * 12–19. the commit: BEGIN, the dir version's compare-and-swap (with the dir's history counter),
 *        the file's body (once by hash, decision 0035) and its manifest row, the DirCommit row,
 *        its passages in the search index (issue 24, in the commit's transaction), the
 *        workspace's history counter (decision 0030), COMMIT
 * 20. settleInterruptedRecord: the turn's `interrupted` commit record, if recovery made one
 * 21. the journal's discard
 * 22–27. recordFinishedTurn: BEGIN, the assistant message (its search passage is written by a
 *        trigger, in the same statement), the Turn row, the chat's updatedAt, the claim's
 *        release, COMMIT
 * 28. maybeAutoRefine (after the response): the last review and the turns since, in one statement
 *
 * Not per turn: the lease heartbeat (`refreshTurnLease`, one UPDATE every 20 s of a turn) and the
 * claim's renewal (one UPDATE every 30 s); a process's first turn also reads the snapshots afresh
 * and starts the durability loop. Before issue 12's cut the same turn ran 27 (bench/README.md).
 */
const MAX_STATEMENTS_PER_TURN = 28;
const MAX_TRANSACTIONS_PER_TURN = 2;

describe(`statements per chat turn (${testDatabaseProvider()})`, () => {
  // The turn's spool goes to a data dir of its own.
  const dataDir = mkdtempSync(path.join(tmpdir(), "cairn-statements-"));
  // The durability loop sweeps at start and then every interval: on a slow machine a sweep every
  // 5 s could land inside a measured turn. Once at start (during the warm-up turn) is enough here.
  const world = registerAppTestWorld({
    role: "member",
    env: { CAIRN_DATA_DIR: dataDir, CAIRN_DURABILITY_INTERVAL_MS: String(60 * 60 * 1000) },
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it(`runs at most ${MAX_STATEMENTS_PER_TURN} statements in ${MAX_TRANSACTIONS_PER_TURN} transactions per turn, all on the SQL layer`, async () => {
    session.current = { userId: world.actor.userId, workspaceId: world.actor.workspaceId };
    // On PostgreSQL every query of the process goes through the pool (Prisma's too): count there
    // as well, so a statement that bypasses the SQL layer is counted.
    const driver = { queries: 0 };
    if (world.database.target.provider === "postgresql") {
      const patched = new WeakSet<object>();
      pgPool(world.database.target.url).on("acquire", (client) => {
        if (patched.has(client)) return;
        patched.add(client);
        const query = client.query.bind(client) as (...args: unknown[]) => unknown;
        (client as { query: unknown }).query = (...args: unknown[]) => {
          driver.queries += 1;
          return query(...args);
        };
      });
    }
    // The first turn warms the process (snapshots, the durability loop); later ones are the steady state.
    await countOneTurn(world.actor.userId, world.chatId, "Remember the first thing.");
    // The loop's first pass starts with that turn and may still be running (its spool step waits
    // on the turn's work): let it end, so none of its statements are counted as the next turn's.
    const { getDurability } = await import("@/lib/workspace-dirs/process-dirs");
    await getDurability().runOnce();
    for (const text of ["Remember the second thing.", "Remember the third thing."]) {
      const before = driver.queries;
      const turn = await countOneTurn(world.actor.userId, world.chatId, text);
      const listing = turn.statements
        .map((event, index) => `${index + 1}. ${event.text.replace(/\s+/g, " ").slice(0, 120)}`)
        .join("\n");
      expect(turn.statements.length, listing).toBeLessThanOrEqual(MAX_STATEMENTS_PER_TURN);
      expect(turn.transactions, listing).toBeLessThanOrEqual(MAX_TRANSACTIONS_PER_TURN);
      if (world.database.target.provider === "postgresql") {
        // The turn's detached automatic-refinement check may still be on its way to the pool.
        await expect
          .poll(() => driver.queries - before, { message: listing, timeout: 5_000 })
          .toBe(turn.statements.length);
      }
    }
    // The turns did what they were asked: each file landed in the user's dir.
    const files = await world.database.db.persistentFile.findMany({
      where: { dirKey: `user:${world.actor.userId}` },
      select: { path: true },
    });
    expect(files.map((file) => file.path).sort()).toEqual(["note-1.md", "note-2.md", "note-3.md"]);
  });
});
