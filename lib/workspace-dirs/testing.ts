import type { Db } from "@/lib/db";
import type { Actor } from "@/lib/harness";
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
