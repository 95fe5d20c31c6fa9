import { installTestCairn } from "@/lib/cairn/testing";
import { createTestDatabase, registerFixture, type TestDatabase } from "@/lib/db/testing";
import type { Actor, Role } from "@/lib/harness";
import { createUserInWorkspace } from "./accounts";
import { sqlForDb } from "@/lib/sql-storage/sql";

/**
 * For tests of app modules that reach the process's Cairn (`getDb()`, `getPersistentDirs()`, …):
 * a fresh database, a Cairn on it installed as the process's (`installTestCairn`, with `env` on
 * top of the process's environment), one person with `role` in a new workspace, and a chat of
 * theirs. `cleanup` closes that Cairn, puts the previous one back and removes the database.
 */
export async function createAppTestWorld(options: {
  role: Role;
  email?: string;
  env?: Record<string, string>;
}): Promise<{
  database: TestDatabase;
  actor: Actor;
  chatId: string;
  cleanup(): Promise<void>;
}> {
  const database = await createTestDatabase();
  const app = installTestCairn({ database: database.target, env: options.env });
  const { user, workspace } = await createUserInWorkspace(sqlForDb(database.db), {
    email: options.email ?? "eve@example.com",
    password: "long-password",
    role: options.role,
    workspaceName: "Acme",
  });
  const chat = await database.db.chat.create({
    data: { workspaceId: workspace.id, userId: user.id, title: "Notes" },
  });
  return {
    database,
    actor: { userId: user.id, workspaceId: workspace.id, role: options.role },
    chatId: chat.id,
    async cleanup() {
      await app.cleanup();
      await database.cleanup();
    },
  };
}

/** What `registerAppTestWorld` hands out: the world's parts, there from the first `beforeAll` on. */
export interface AppTestWorld {
  readonly database: TestDatabase;
  readonly actor: Actor;
  readonly chatId: string;
}

/** `createAppTestWorld` as a `registerFixture` (`@/lib/db/testing`). */
export function registerAppTestWorld(options: {
  role: Role;
  email?: string;
  env?: Record<string, string>;
}): AppTestWorld {
  const current = registerFixture(
    "registerAppTestWorld",
    () => createAppTestWorld(options),
    (world) => world.cleanup(),
  );
  return {
    get database() {
      return current().database;
    },
    get actor() {
      return current().actor;
    },
    get chatId() {
      return current().chatId;
    },
  };
}
