import { registerFixture, registerTestDatabase, type TestDatabase } from "@/lib/db/testing";
import type { Actor } from "@/lib/harness";
import { harnessStorageFor, sqlFor } from "@/lib/sql-storage";
import {
  createPersistentDirsService,
  type PersistentDirsService,
} from "@/lib/workspace-dirs/dirs-service";
import { createTestWorkspaces } from "@/lib/workspace-dirs/testing";
import type { ReviewDeps } from "./review";

/** What `registerReviewTestWorld` hands out, there from the first `beforeAll` on. */
export interface ReviewTestWorld {
  readonly database: TestDatabase;
  /** The persistent dirs service on the database, as the Files page uses it. */
  readonly service: PersistentDirsService;
  /** The review's dependencies on the same database and dirs. */
  readonly deps: ReviewDeps;
}

/**
 * For the review tests: a fresh database in which `actors` are members of their workspaces (each
 * created, named after its id), the persistent dirs service on it and the review's dependencies.
 * Registered as a fixture of the test file (`registerFixture`).
 */
export function registerReviewTestWorld(actors: readonly Actor[]): ReviewTestWorld {
  const database = registerTestDatabase();
  const current = registerFixture(
    "registerReviewTestWorld",
    async () => {
      await createTestWorkspaces(database.db, actors);
      const service = createPersistentDirsService({ sql: database.sql });
      const deps: ReviewDeps = {
        sql: sqlFor(database.target),
        appDirs: service.appDirs,
        harnessStorage: harnessStorageFor({ target: database.target }),
      };
      return { service, deps };
    },
    async () => {},
  );
  return {
    database,
    get service() {
      return current().service;
    },
    get deps() {
      return current().deps;
    },
  };
}
