import { execFileSync } from "node:child_process";
import path from "node:path";
import type { Person } from "./pages";

/** A workspace role, as the CLI takes it. */
export type Role = "admin" | "editor" | "member";

/** The e2e server's database (see scripts/e2e-server.mjs). */
export const E2E_DATABASE_URL = `file:${path.join(process.cwd(), "data", "e2e", "cairn.db")}`;

/**
 * Creates a user in `workspace` (created if missing) with the `cairn` CLI against the e2e
 * server's database (or `databaseUrl`: a spec's second server, e2e/support/app-server.ts), so a
 * spec can set up people of any role without going through invites.
 */
export function createUser(
  person: Person & { role: Role; workspace: string },
  databaseUrl: string = E2E_DATABASE_URL,
): void {
  execFileSync(
    process.execPath,
    [
      "bin/cairn.mjs",
      "user",
      "create",
      "--email",
      person.email,
      "--password",
      person.password,
      "--role",
      person.role,
      "--workspace",
      person.workspace,
      "--name",
      person.name,
    ],
    {
      cwd: process.cwd(),
      env: { ...process.env, DATABASE_URL: databaseUrl, CAIRN_BCRYPT_COST: "4" },
      stdio: "pipe",
    },
  );
}
