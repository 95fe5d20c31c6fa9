import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlForDb } from "@/lib/sql-storage/sql";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { main } from "./main";
import { capture } from "./testing";

/** `user create --email … --password … --role …`, then `extra`. */
function userCreate(email: string, password: string, role: string, ...extra: string[]) {
  return ["user", "create", "--email", email, "--password", password, "--role", role, ...extra];
}

describe(`cairn CLI (${testDatabaseProvider()})`, () => {
  const database = registerTestDatabase();
  const previousUrl = process.env.DATABASE_URL;
  beforeAll(async () => {
    process.env.DATABASE_URL = database.target.url;
  });
  afterAll(async () => {
    process.env.DATABASE_URL = previousUrl;
  });

  it("creates a user in a named workspace, creating the workspace", async () => {
    const { io, out } = capture();
    const code = await main(
      userCreate("ops@example.com", "long-password", "editor", "--workspace", "Ops"),
      io,
    );
    expect(code).toBe(0);
    expect(out.join("\n")).toContain('created ops@example.com as editor of workspace "Ops"');
    const membership = await database.db.membership.findFirstOrThrow({
      include: { workspace: true, user: true },
    });
    expect(membership).toMatchObject({
      role: "editor",
      workspace: { name: "Ops" },
      user: { email: "ops@example.com" },
    });
  });

  it("exits 1 with a clear message on a duplicate email", async () => {
    const { io, err } = capture();
    const code = await main(
      userCreate("ops@example.com", "another-password", "admin", "--workspace", "Ops"),
      io,
    );
    expect(code).toBe(1);
    expect(err.join("\n")).toContain("already exists");
  });

  it.each([
    [userCreate("a@example.com", "long-password", "owner"), "--role must be"],
    [["user", "create", "--password", "long-password", "--role", "admin"], "--email is required"],
    [userCreate("a@example.com", "long-password", "admin", "--bogus"), "Unknown option"],
    [["user", "frobnicate"], 'Unknown command "user frobnicate"'],
    [userCreate("not-an-email", "long-password", "admin"), "valid email"],
    [
      ["user", "create", "--email", "b@example.com", "--password", "short", "--role", "admin"],
      "at least 8",
    ],
  ])("exits 2 on bad arguments: %j", async (argv, message) => {
    const { io, err } = capture();
    expect(await main(argv, io)).toBe(2);
    expect(err.join("\n")).toContain(message);
  });

  it("migrates an up-to-date database without changes", async () => {
    const { io, out } = capture();
    expect(await main(["db", "migrate"], io)).toBe(0);
    expect(out.join("\n")).toMatch(/0 migration\(s\) applied/);
  });

  it("prints a personal access token for a member, stored only as its hash", async () => {
    const { io, out } = capture();
    const code = await main(
      ["token", "create", "--email", "ops@example.com", "--workspace", "Ops", "--name", "ci"],
      io,
    );
    expect(code).toBe(0);
    const token = out.at(-1)!;
    expect(token).toMatch(/^cairn_pat_/);
    const { authenticateAccessToken } = await import("@/lib/access-tokens");
    const identity = await authenticateAccessToken(sqlForDb(database.db), { token });
    expect(identity).toMatchObject({ actor: { role: "editor" }, token: { name: "ci" } });
    const { io: badIo, err } = capture();
    expect(
      await main(["token", "create", "--email", "nobody@example.com", "--workspace", "Ops"], badIo),
    ).toBe(1);
    expect(err.join("\n")).toContain("no user with email");
    expect(await main(["token", "create", "--email", "ops@example.com"], badIo)).toBe(2);
  });
});
