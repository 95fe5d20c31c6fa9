import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { encode } from "gpt-tokenizer";
import { beforeAll, describe, expect, it } from "vitest";

import {
  ACCESS_TOKEN_PREFIX,
  authenticateAccessToken,
  createAccessToken,
  hashAccessToken,
  listAccessTokens,
  revokeAccessToken,
  type AccessTokenIdentity,
} from "@/lib/access-tokens";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import type { HarnessStoragePort } from "@/lib/harness";
import { createPersistentDirsService, type PersistentDirsService } from "@/lib/workspace-dirs";
import { harnessStorageFor, listDirCommits, sqlFor } from "@/lib/sql-storage";
import { createCairnMcpServer } from "./create-cairn-mcp-server";
import { handleMcpRequest } from "./handle-mcp-request";
import { sqlForDb } from "@/lib/sql-storage/sql";
import { mcpPost } from "./testing";

const database = registerTestDatabase();
let dirs: PersistentDirsService;
let harnessStorage: HarnessStoragePort;
let workspaceId: string;
const users: Record<"editor" | "member", string> = { editor: "", member: "" };

beforeAll(async () => {
  const { db, target } = database;
  dirs = createPersistentDirsService({ sql: database.sql });
  harnessStorage = harnessStorageFor({ target });
  const workspace = await db.workspace.create({ data: { name: "Acme" } });
  workspaceId = workspace.id;
  for (const role of ["editor", "member"] as const) {
    const user = await db.user.create({ data: { email: `${role}@acme.test`, name: role } });
    await db.membership.create({ data: { userId: user.id, workspaceId, role } });
    users[role] = user.id;
  }
});
async function connect(identity: AccessTokenIdentity) {
  const server = createCairnMcpServer({
    sql: sqlForDb(database.db),
    identity,
    dirs,
    harnessStorage,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "unit-test", version: "1.0.0" });
  await client.connect(clientSide);
  return client;
}

async function identityFor(role: "editor" | "member", name = `${role} token`) {
  const { token } = await createAccessToken(sqlForDb(database.db), {
    userId: users[role],
    workspaceId,
    name,
  });
  return { token, identity: await authenticateAccessToken(sqlForDb(database.db), { token }) };
}

const textOf = (result: unknown) =>
  (result as CallToolResult).content
    .map((part) => (part.type === "text" ? part.text : ""))
    .join("\n");

describe(`personal access tokens on ${testDatabaseProvider()}`, () => {
  it("stores only the SHA-256 of a prefixed, high-entropy token and shows it once", async () => {
    const { token, record } = await createAccessToken(sqlForDb(database.db), {
      userId: users.member,
      workspaceId,
      name: " laptop ",
    });
    expect(token).toMatch(/^cairn_pat_[A-Za-z0-9_-]{43}$/);
    expect(record.name).toBe("laptop");
    expect(record.prefix).toBe(token.slice(0, ACCESS_TOKEN_PREFIX.length + 4));
    const row = await database.db.personalAccessToken.findUniqueOrThrow({
      where: { id: record.id },
    });
    expect(row.tokenHash).toBe(hashAccessToken(token));
    expect(JSON.stringify(row)).not.toContain(token);
    const listed = await listAccessTokens(sqlForDb(database.db), {
      userId: users.member,
      workspaceId,
    });
    expect(listed.map((item) => item.id)).toContain(record.id);
    expect(Object.keys(listed[0]!)).not.toContain("tokenHash");
  });

  it("refuses missing, malformed, unknown, expired and revoked tokens", async () => {
    const refuse = (token: string | null, now?: Date) =>
      authenticateAccessToken(sqlForDb(database.db), { token, now }).then(
        () => "accepted",
        (error: { reason: string }) => error.reason,
      );
    expect(await refuse(null)).toBe("missing");
    expect(await refuse("hello")).toBe("malformed");
    expect(await refuse(`cairn_pat_${"A".repeat(43)}`)).toBe("unknown");

    const now = new Date("2026-12-01T10:00:00Z");
    const { token, record } = await createAccessToken(sqlForDb(database.db), {
      userId: users.member,
      workspaceId,
      name: "short-lived",
      expiresAt: new Date("2026-12-02T10:00:00Z"),
      now,
    });
    expect(await refuse(token, now)).toBe("accepted");
    expect(await refuse(token, new Date("2026-12-02T10:00:00Z"))).toBe("expired");

    // Someone else cannot revoke it; its owner can, once.
    expect(
      await revokeAccessToken(sqlForDb(database.db), {
        userId: users.editor,
        workspaceId,
        id: record.id,
      }),
    ).toBe(false);
    expect(await refuse(token, now)).toBe("accepted");
    expect(
      await revokeAccessToken(sqlForDb(database.db), {
        userId: users.member,
        workspaceId,
        id: record.id,
      }),
    ).toBe(true);
    expect(
      await revokeAccessToken(sqlForDb(database.db), {
        userId: users.member,
        workspaceId,
        id: record.id,
      }),
    ).toBe(false);
    expect(await refuse(token, now)).toBe("revoked");
  });

  it("reads the role from the membership on every call", async () => {
    const outsider = await database.db.user.create({
      data: { email: "temp@acme.test", name: "temp" },
    });
    await database.db.membership.create({
      data: { userId: outsider.id, workspaceId, role: "editor" },
    });
    const { token } = await createAccessToken(sqlForDb(database.db), {
      userId: outsider.id,
      workspaceId,
      name: "t",
    });
    expect((await authenticateAccessToken(sqlForDb(database.db), { token })).actor.role).toBe(
      "editor",
    );
    await database.db.membership.update({
      where: { userId_workspaceId: { userId: outsider.id, workspaceId } },
      data: { role: "member" },
    });
    expect((await authenticateAccessToken(sqlForDb(database.db), { token })).actor.role).toBe(
      "member",
    );
    await database.db.membership.delete({
      where: { userId_workspaceId: { userId: outsider.id, workspaceId } },
    });
    await expect(authenticateAccessToken(sqlForDb(database.db), { token })).rejects.toMatchObject({
      reason: "no_membership",
    });
  });
});

describe(`MCP tools on ${testDatabaseProvider()}`, () => {
  it("answers 401 with WWW-Authenticate for a bad token and records the client's name", async () => {
    const options = { sql: sqlForDb(database.db), dirs, harnessStorage };
    const missing = await handleMcpRequest(
      new Request("http://localhost/api/mcp", { method: "POST", body: "{}" }),
      options,
    );
    expect(missing.status).toBe(401);
    expect(missing.headers.get("www-authenticate")).toBe('Bearer realm="cairn"');
    const wrong = await handleMcpRequest(
      new Request("http://localhost/api/mcp", {
        method: "POST",
        headers: { authorization: `Bearer cairn_pat_${"B".repeat(43)}` },
        body: "{}",
      }),
      options,
    );
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get("www-authenticate")).toContain('error="invalid_token"');

    const { token, identity } = await identityFor("member", "client-name");
    const initialized = await handleMcpRequest(
      mcpPost({
        token,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "claude-code", version: "2.0.0" },
          },
        }),
      }),
      options,
    );
    expect(initialized.status).toBe(200);
    const body = (await initialized.json()) as { result: { serverInfo: { name: string } } };
    expect(body.result.serverInfo.name).toBe("cairn");
    const row = await database.db.personalAccessToken.findUniqueOrThrow({
      where: { id: identity.token.id },
    });
    expect(row.clientName).toBe("claude-code");
  });

  // Issue 29 item 7: a foreign Host or Origin was answered (the spec's DNS-rebinding MUST).
  it("refuses a foreign Host or Origin with 403 before the token, and keeps MCP clients working", async () => {
    const { token } = await identityFor("member", "rebinding");
    const initialize = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "rebinding-test", version: "1.0.0" },
      },
    });
    const call = (headers: Record<string, string>, allowedOrigins: string[] = []) =>
      handleMcpRequest(
        mcpPost({ url: "http://127.0.0.1:3000/api/mcp", token, body: initialize, headers }),
        { sql: sqlForDb(database.db), dirs, harnessStorage, allowedOrigins },
      );

    const rebinding = await call({ host: "evil.example.com", origin: "http://evil.example.com" });
    expect(rebinding.status).toBe(403);
    expect(await rebinding.json()).toMatchObject({
      jsonrpc: "2.0",
      error: { code: -32000 },
      id: null,
    });
    expect((await call({ host: "evil.example.com" })).status).toBe(403);
    expect(
      (await call({ host: "127.0.0.1:3000", origin: "https://evil.example.com" })).status,
    ).toBe(403);
    // Before the token is looked at: no token, still 403 (not 401).
    const anonymous = await handleMcpRequest(
      new Request("http://127.0.0.1:3000/api/mcp", {
        method: "POST",
        headers: { host: "evil.example.com" },
        body: "{}",
      }),
      { sql: sqlForDb(database.db), dirs, harnessStorage, allowedOrigins: [] },
    );
    expect(anonymous.status).toBe(403);

    // Clients without an Origin (Claude Code, the bridge) on loopback or the configured host.
    expect((await call({ host: "127.0.0.1:3000" })).status).toBe(200);
    expect((await call({ host: "cairn.example.com" }, ["https://cairn.example.com"])).status).toBe(
      200,
    );
    expect((await call({ host: "127.0.0.1:3000", origin: "http://127.0.0.1:3000" })).status).toBe(
      200,
    );
  });

  it("writes a memory file as its own commit, recorded as coming through MCP", async () => {
    const { identity } = await identityFor("member", "laptop");
    const client = await connect({
      ...identity,
      token: { ...identity.token, clientName: "unit-test" },
    });
    const tools = await client.listTools();
    expect(tools.tools.map((tool) => tool.name).sort()).toEqual([
      "harness_create",
      "harness_delete",
      "harness_get",
      "harness_search",
      "harness_update",
      "harness_view",
      "memory",
      "report_outcome",
      "search",
    ]);
    const created = await client.callTool({
      name: "memory",
      arguments: { command: "create", path: "/persistent/user/notes.md", file_text: "likes tea\n" },
    });
    expect(created.isError).toBeFalsy();
    expect(textOf(created)).toContain("Saved /persistent/user");
    const viewed = await client.callTool({
      name: "memory",
      arguments: { command: "view", path: "/persistent/user/notes.md" },
    });
    expect(textOf(viewed)).toContain("likes tea");

    const history = await listDirCommits({
      sql: sqlFor(database.target),
      dirKey: `user:${users.member}`,
    });
    expect(history.commits[0]).toMatchObject({
      source: "mcp",
      via: "mcp:laptop (unit-test)",
      actorId: users.member,
      created: ["notes.md"],
    });

    const resources = await client.listResources();
    const uri = resources.resources.find(
      (resource) => resource.name === "/persistent/user/notes.md",
    )?.uri;
    expect(uri).toBe("cairn://files/persistent/user/notes.md");
    const read = await client.readResource({ uri: uri! });
    expect(read.contents[0]).toMatchObject({ text: "likes tea\n" });
    // A URI that names nothing: the spec's "Resource not found" (-32002), not an internal error.
    for (const missing of [
      "cairn://files/persistent/user/nothing-here.md",
      "cairn://files/persistent/elsewhere/notes.md",
    ]) {
      await expect(client.readResource({ uri: missing })).rejects.toMatchObject({
        code: -32002,
        message: expect.stringContaining("No memory file at") as unknown,
      });
    }
    await client.close();
  });

  it("keeps a member's company and global writes as suggestions for review and allows an editor's", async () => {
    const member = await connect((await identityFor("member")).identity);
    const suggested = await member.callTool({
      name: "memory",
      arguments: { command: "create", path: "/persistent/company/a.md", file_text: "x" },
    });
    expect(suggested.isError).toBeFalsy();
    expect(textOf(suggested)).toMatch(/suggested for review/i);
    const harnessSuggested = await member.callTool({
      name: "harness_create",
      arguments: { kind: "memory", title: "Deploys", content: "Friday freeze" },
    });
    expect(harnessSuggested.isError).toBeFalsy();
    expect(textOf(harnessSuggested)).toMatch(/Suggested for review/);
    const rows = await database.db.suggestion.findMany({ where: { workspaceId } });
    expect(rows.map((row) => [row.target, row.source, row.status])).toEqual(
      expect.arrayContaining([
        ["dir", "mcp", "open"],
        ["entry", "mcp", "open"],
      ]),
    );
    expect(rows.every((row) => row.via?.startsWith("mcp:"))).toBe(true);
    await member.close();

    const editor = await connect((await identityFor("editor", "ci")).identity);
    const allowed = await editor.callTool({
      name: "memory",
      arguments: { command: "create", path: "/persistent/company/a.md", file_text: "x" },
    });
    expect(allowed.isError).toBeFalsy();
    const entry = await editor.callTool({
      name: "harness_create",
      arguments: { kind: "memory", title: "Deploys", content: "No deploys on Friday." },
    });
    expect(entry.isError).toBeFalsy();
    const { id, version } = JSON.parse(textOf(entry)) as { id: string; version: number };
    const stale = await editor.callTool({
      name: "harness_update",
      arguments: { kind: "memory", id, expected_version: version + 1, content: "changed" },
    });
    expect(stale.isError).toBe(true);
    expect(textOf(stale)).toMatch(/conflict/);
    const updated = await editor.callTool({
      name: "harness_update",
      arguments: { kind: "memory", id, expected_version: version, content: "Deploys: Mon–Thu." },
    });
    expect(JSON.parse(textOf(updated))).toMatchObject({ version: version + 1 });
    const revisions = await harnessStorage.listRevisions({
      workspaceId,
      entryKey: `global/-/memory/${id}`,
    });
    expect(revisions.items.at(-1)?.via).toBe("mcp:ci");
    await editor.close();
  });

  it("keeps harness_view within the requested budget, capped by the workspace's", async () => {
    const { identity } = await identityFor("editor");
    const client = await connect(identity);
    for (let index = 0; index < 30; index += 1) {
      await client.callTool({
        name: "harness_create",
        arguments: {
          kind: "memory",
          title: `Release note ${index}`,
          content: `Release step ${index}: ${"check the changelog and tag the build ".repeat(6)}`,
        },
      });
    }
    for (const budget of [120, 600]) {
      const result = await client.callTool({
        name: "harness_view",
        arguments: { query: "release", token_budget: budget },
      });
      const [view, meta] = (result as CallToolResult).content as { text: string }[];
      const info = JSON.parse(meta!.text) as { tokens: number; tokenBudget: number };
      expect(info.tokenBudget).toBe(budget);
      expect(encode(view!.text).length).toBe(info.tokens);
      expect(info.tokens).toBeLessThanOrEqual(budget);
      expect(view!.text).toContain("Release");
    }
    await database.db.workspaceSettings.create({ data: { workspaceId, tokenBudget: 500 } });
    const capped = await client.callTool({
      name: "harness_view",
      arguments: { token_budget: 50_000 },
    });
    const info = JSON.parse(((capped as CallToolResult).content[1] as { text: string }).text) as {
      tokens: number;
      tokenBudget: number;
    };
    expect(info.tokenBudget).toBe(500);
    expect(info.tokens).toBeLessThanOrEqual(500);
    await client.close();
  });

  it("reports an answer's outcome for a turn id of the person's own chat only", async () => {
    const { db } = database;
    const chat = await db.chat.create({
      data: { workspaceId, userId: users.member, title: "Rated" },
    });
    const turn = await db.turn.create({
      data: {
        chatId: chat.id,
        userId: users.member,
        status: "completed",
        assistantMessageId: "answer-1",
        model: "scripted",
        instructions: JSON.stringify([
          { name: "harness", details: { harnessVersion: 7, entriesShown: ["global:style"] } },
        ]),
        trace: JSON.stringify([
          { type: "dir.loaded", harnessDir: "/persistent/user", cursor: 3, at: "x" },
        ]),
      },
    });
    const editor = await connect((await identityFor("editor")).identity);
    const refused = await editor.callTool({
      name: "report_outcome",
      arguments: { turn_id: turn.id, rating: "good" },
    });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain("No answer with turn id");
    await editor.close();

    const member = await connect((await identityFor("member")).identity);
    const reported = await member.callTool({
      name: "report_outcome",
      arguments: { turn_id: turn.id, rating: "bad", comment: "stale", tags: ["forgot"] },
    });
    expect(reported.isError).toBeFalsy();
    expect(textOf(reported)).toContain("rated bad (harness version 7)");
    const row = await db.turnOutcome.findUniqueOrThrow({ where: { turnId: turn.id } });
    expect(row).toMatchObject({
      source: "mcp",
      rating: "bad",
      comment: "stale",
      userId: users.member,
      harnessVersion: 7,
      model: "scripted",
    });
    expect(JSON.parse(row.entriesShown)).toEqual(["global:style"]);
    expect(JSON.parse(row.dirCursors)).toEqual({ "/persistent/user": 3 });
    await member.close();
  });
});

describe(`the MCP search tool on ${testDatabaseProvider()}`, () => {
  it("finds the caller's memory and the company's knowledge with path and line range, never another person's memory", async () => {
    const member = await connect((await identityFor("member", "search member")).identity);
    const editor = await connect((await identityFor("editor", "search editor")).identity);
    const write = (client: Client, path: string, fileText: string) =>
      client.callTool({
        name: "memory",
        arguments: { command: "create", path, file_text: fileText },
      });
    await write(member, "/persistent/user/mcp-search.md", "# Mine\n\nmy quasar note\n");
    await write(editor, "/persistent/user/mcp-search.md", "editor private quasar\n");
    await write(
      editor,
      "/persistent/company/mcp-search.md",
      "intro\n\n## Quasar\nthe company quasar plan\n",
    );
    const result = textOf(
      await member.callTool({ name: "search", arguments: { query: "quasar" } }),
    );
    expect(result).toContain("/persistent/user/mcp-search.md lines 1-3");
    expect(result).toContain("/persistent/company/mcp-search.md lines 3-4 § Quasar");
    expect(result).not.toContain("editor private");
    expect(result).toMatch(/^2 passages for "quasar"/);
    const scoped = textOf(
      await member.callTool({ name: "search", arguments: { query: "quasar", scope: ["company"] } }),
    );
    expect(scoped).toMatch(/^1 passage for "quasar"/);
    await member.close();
    await editor.close();
  });
});
