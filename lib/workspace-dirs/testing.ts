import type { Db } from "@/lib/db";
import { openTurnCheckout, type Actor } from "@/lib/harness";
import type { SqlExecutor } from "@/lib/sql-storage/sql";
import type { PersistentDirsService } from "./dirs-service";

/**
 * Makes each actor a real member of its (existing) workspace: a user `<userId>@example.com` and
 * a membership with the actor's role. For tests: company commits check the role again in the
 * database, so actors that only exist in memory are refused there.
 */
export async function createTestMembers(db: Db, actors: readonly Actor[]): Promise<void> {
  for (const actor of actors) {
    await db.user.create({
      data: { id: actor.userId, email: `${actor.userId}@example.com`, name: actor.userId },
    });
    await db.membership.create({
      data: { userId: actor.userId, workspaceId: actor.workspaceId, role: actor.role },
    });
  }
}

/** Creates the workspaces of `actors` (each named after its id), then makes them members of them. */
export async function createTestWorkspaces(db: Db, actors: readonly Actor[]): Promise<void> {
  for (const workspaceId of new Set(actors.map((actor) => actor.workspaceId))) {
    await db.workspace.create({ data: { id: workspaceId, name: workspaceId } });
  }
  await createTestMembers(db, actors);
}

/**
 * Saves `content` over `path` from the Files page, against whatever it holds now (a new file
 * against the dir's current version), as a person at the editor would.
 */
export async function saveOverCurrent(
  service: PersistentDirsService,
  options: { actor: Actor; harnessDir: string; path: string; content: string },
): ReturnType<PersistentDirsService["saveFile"]> {
  const { actor, harnessDir, path } = options;
  const opened = await service.readFile({ actor, harnessDir, path });
  const listed = await service.listFiles({ actor, harnessDir });
  return service.saveFile({
    ...options,
    baseCursor: opened?.cursor ?? listed.cursor,
    baseContent: opened?.text ?? null,
  });
}

/**
 * Three versions of `/persistent/user/a.md` in the actor's memory ("v1", "v2", "v3"), one turn
 * each, the first two dated 40 days back: history past a 30-day retention window.
 */
export async function writeAgedMemoryHistory(
  service: PersistentDirsService,
  sql: SqlExecutor,
  actor: Actor,
): Promise<void> {
  for (const version of [1, 2, 3]) {
    const turn = await openTurnCheckout({
      dirs: service.dirs,
      extraBody: { actor },
      session: null,
      commitLog: service.commitLog,
    });
    turn.checkout.writeFile({ path: "/persistent/user/a.md", content: `v${version}` });
    const result = await turn.finishTurn({ status: "completed" });
    if (result.status !== "succeeded")
      throw new Error(`v${version} was not committed (${result.status})`);
  }
  await sql.run(`UPDATE "DirCommit" SET "createdAt" = ? WHERE "dirKey" = ? AND "version" <= 2`, [
    new Date(Date.now() - 40 * 86_400_000),
    `user:${actor.userId}`,
  ]);
}
