import { createTestDatabase, registerFixture, type TestDatabase } from "@/lib/db/testing";
import type { Actor, Role } from "@/lib/harness";
import { createUserInWorkspace } from "./accounts";

/**
 * For tests of app modules that read the database through `getDb()`: a fresh database made the
 * process's `DATABASE_URL`, one person with `role` in a new workspace, and a chat of theirs.
 * `cleanup` disconnects the app's client and removes the database.
 */
export async function createAppTestWorld(options: { role: Role; email?: string }): Promise<{
  database: TestDatabase;
  actor: Actor;
  chatId: string;
  cleanup(): Promise<void>;
}> {
  const database = await createTestDatabase();
  process.env.DATABASE_URL = database.target.url;
  const { user, workspace } = await createUserInWorkspace(database.db, {
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
      const { getDb } = await import("@/lib/db");
      await getDb().$disconnect();
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
export function registerAppTestWorld(options: { role: Role; email?: string }): AppTestWorld {
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
