/**
 * The MCP endpoint end to end: the SDK's own client against `next start` (the real route, auth,
 * database and commit path). Run with `npm run test:integration` (builds once when the sources
 * changed; port CAIRN_INTEGRATION_PORT, default 3150).
 */
import path from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { encode } from "gpt-tokenizer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createAccessToken } from "@/lib/access-tokens";
import { createUserInWorkspace } from "@/lib/accounts";
import { createCommitLog, listDirCommits, readDirFile, sqlForDb } from "@/lib/sql-storage";
import { startAppServer, type AppServer } from "./support/app-server";

const port = Number(process.env.CAIRN_INTEGRATION_PORT ?? 3150);
let app: AppServer;
let workspaceId: string;
const people: Record<"editor" | "member", { userId: string }> = {
  editor: { userId: "" },
  member: { userId: "" },
};

beforeAll(
  async () => {
    // The harness_view case creates 25 entries in a row, past the default turn rate (30 a minute,
    // shared by every write of the file's editor); the rate has its own test (request-bodies).
    app = await startAppServer({ port, env: { CAIRN_TURNS_PER_MINUTE: "600" } });
    for (const role of ["editor", "member"] as const) {
      const { user, workspace } = await createUserInWorkspace(sqlForDb(app.db), {
        email: `${role}@acme.test`,
        password: "integration-password",
        name: `${role[0]!.toUpperCase()}${role.slice(1)}`,
        role,
        workspaceName: "Acme",
      });
      people[role].userId = user.id;
      workspaceId = workspace.id;
    }
  },
  25 * 60 * 1000,
);

afterAll(async () => {
  await app?.db.$disconnect();
  await app?.stop();
});

async function tokenFor(role: "editor" | "member", name: string, expiresAt?: Date) {
  const { token, record } = await createAccessToken(sqlForDb(app.db), {
    userId: people[role].userId,
    workspaceId,
    name,
    expiresAt,
  });
  return { token, id: record.id };
}

async function connect(token: string, clientName = "integration-test") {
  const client = new Client({ name: clientName, version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${app.baseUrl}/api/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

const textOf = (result: unknown) =>
  (result as CallToolResult).content
    .map((part) => (part.type === "text" ? part.text : ""))
    .join("\n");

describe("MCP over Streamable HTTP against next start", () => {
  it("lists the tools", async () => {
    const client = await connect((await tokenFor("member", "list")).token);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
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
    const memory = tools.find((tool) => tool.name === "memory")!;
    expect(memory.inputSchema.type).toBe("object");
    await client.close();
  });

  it("writes a memory file, reads it back, and records where it came from", async () => {
    const client = await connect((await tokenFor("member", "laptop")).token, "claude-code");
    const written = await client.callTool({
      name: "memory",
      arguments: {
        command: "create",
        path: "/persistent/user/preferences.md",
        file_text: "Prefers short answers.\n",
      },
    });
    expect(written.isError).toBeFalsy();
    const viewed = await client.callTool({
      name: "memory",
      arguments: { command: "view", path: "/persistent/user/preferences.md" },
    });
    expect(textOf(viewed)).toContain("Prefers short answers.");
    const resource = await client.readResource({
      uri: "cairn://files/persistent/user/preferences.md",
    });
    expect(resource.contents[0]).toMatchObject({ text: "Prefers short answers.\n" });

    const stored = await readDirFile({
      sql: sqlForDb(app.db),
      dirKey: `user:${people.member.userId}`,
      path: "preferences.md",
    });
    expect(stored?.content).toBe("Prefers short answers.\n");
    const history = await listDirCommits({
      sql: sqlForDb(app.db),
      dirKey: `user:${people.member.userId}`,
    });
    expect(history.commits[0]).toMatchObject({ source: "mcp", via: "mcp:laptop (claude-code)" });
    await client.close();
  });

  it("keeps a member's company write as a suggestion for review (not applied) and allows an editor's", async () => {
    const member = await connect((await tokenFor("member", "member-laptop")).token);
    const suggested = await member.callTool({
      name: "memory",
      arguments: { command: "create", path: "/persistent/company/handbook.md", file_text: "x\n" },
    });
    expect(suggested.isError).toBeFalsy();
    expect(textOf(suggested)).toMatch(/suggested for review/i);
    await member.close();

    const editor = await connect((await tokenFor("editor", "editor-laptop")).token);
    const allowed = await editor.callTool({
      name: "memory",
      arguments: {
        command: "create",
        path: "/persistent/company/handbook.md",
        file_text: "Be kind.\n",
      },
    });
    expect(allowed.isError).toBeFalsy();
    const stored = await readDirFile({
      sql: sqlForDb(app.db),
      dirKey: `company:${workspaceId}`,
      path: "handbook.md",
    });
    expect(stored?.content).toBe("Be kind.\n");
    await editor.close();
  });

  it("refuses revoked and expired tokens with 401", async () => {
    const revoked = await tokenFor("member", "to-revoke");
    await app.db.personalAccessToken.update({
      where: { id: revoked.id },
      data: { revokedAt: new Date() },
    });
    await expect(connect(revoked.token)).rejects.toThrow();
    const expired = await tokenFor("member", "expired");
    await app.db.personalAccessToken.update({
      where: { id: expired.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    await expect(connect(expired.token)).rejects.toThrow();

    for (const token of [revoked.token, expired.token, "not-a-token"]) {
      const response = await fetch(`${app.baseUrl}/api/mcp`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${token}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer realm="cairn"/);
    }
    const anonymous = await fetch(`${app.baseUrl}/api/mcp`, { method: "POST", body: "{}" });
    expect(anonymous.status).toBe(401);
  });

  it("a demoted editor's next call only suggests: nothing is applied", async () => {
    const editor = await connect((await tokenFor("editor", "demote-me")).token);
    const before = await editor.callTool({
      name: "memory",
      arguments: { command: "create", path: "/persistent/company/a.md", file_text: "one\n" },
    });
    expect(before.isError).toBeFalsy();
    const membership = { userId_workspaceId: { userId: people.editor.userId, workspaceId } };
    await app.db.membership.update({ where: membership, data: { role: "member" } });
    try {
      const after = await editor.callTool({
        name: "memory",
        arguments: { command: "create", path: "/persistent/company/a.md", file_text: "two\n" },
      });
      expect(textOf(after)).toMatch(/suggested for review/i);
      const entry = await editor.callTool({
        name: "harness_create",
        arguments: { kind: "memory", title: "Nope", content: "Should be refused." },
      });
      expect(textOf(entry)).toMatch(/Suggested for review/);
      const stored = await readDirFile({
        sql: sqlForDb(app.db),
        dirKey: `company:${workspaceId}`,
        path: "a.md",
      });
      expect(stored?.content).toBe("one\n");
    } finally {
      await app.db.membership.update({ where: membership, data: { role: "editor" } });
      await editor.close();
    }
  });

  it("merges or records concurrent writes of two clients to one file; nothing is lost", async () => {
    const lines = Array.from({ length: 24 }, (_, index) => `line ${index + 1}`);
    const setup = await connect((await tokenFor("editor", "setup")).token);
    await setup.callTool({
      name: "memory",
      arguments: {
        command: "create",
        path: "/persistent/company/shared.md",
        file_text: `${lines.join("\n")}\n`,
      },
    });
    await setup.close();
    const first = await connect((await tokenFor("editor", "first")).token, "client-one");
    const second = await connect((await tokenFor("member", "second")).token, "client-two");
    // The member writes their own memory file concurrently too; the editors' edits race on one file.
    const third = await connect((await tokenFor("editor", "third")).token, "client-three");
    const edits = [1, 5, 9, 13, 17, 21].map((line, index) => ({
      client: [first, third][index % 2]!,
      old: `line ${line}\n`,
      replacement: `line ${line} edited by client ${index % 2}\n`,
    }));
    const results = await Promise.all([
      ...edits.map((edit) =>
        edit.client.callTool({
          name: "memory",
          arguments: {
            command: "str_replace",
            path: "/persistent/company/shared.md",
            old_str: edit.old,
            new_str: edit.replacement,
          },
        }),
      ),
      second.callTool({
        name: "memory",
        arguments: { command: "create", path: "/persistent/user/own.md", file_text: "mine\n" },
      }),
    ]);
    const final = await readDirFile({
      sql: sqlForDb(app.db),
      dirKey: `company:${workspaceId}`,
      path: "shared.md",
    });
    const finalText = String(final?.content);
    const commitLog = createCommitLog({ sql: sqlForDb(app.db) });
    const records = await commitLog.listCommits({ owner: `workspace:${workspaceId}`, limit: 100 });
    const recordedText = JSON.stringify(records.commits.map((record) => record.changes));
    for (const [index, edit] of edits.entries()) {
      const landed = finalText.includes(edit.replacement.trim());
      const kept = recordedText.includes(edit.replacement.trim());
      expect(landed || kept, `edit ${index}: ${textOf(results[index])}`).toBe(true);
      if (!landed) expect(results[index]!.isError).toBe(true);
    }
    expect(results.at(-1)!.isError).toBeFalsy();
    await Promise.all([first.close(), second.close(), third.close()]);
  });

  it("keeps harness_view within the token budget", async () => {
    const editor = await connect((await tokenFor("editor", "view")).token);
    for (let index = 0; index < 25; index += 1) {
      const created = await editor.callTool({
        name: "harness_create",
        arguments: {
          kind: "memory",
          title: `Deploy rule ${index}`,
          content: `Deploy step ${index}: ${"run the migrations, then the smoke tests ".repeat(5)}`,
        },
      });
      expect(created.isError).toBeFalsy();
    }
    for (const budget of [150, 800]) {
      const result = (await editor.callTool({
        name: "harness_view",
        arguments: { query: "how do we deploy", token_budget: budget },
      })) as CallToolResult;
      const view = (result.content[0] as { text: string }).text;
      const meta = JSON.parse((result.content[1] as { text: string }).text) as { tokens: number };
      expect(encode(view).length).toBe(meta.tokens);
      expect(meta.tokens).toBeLessThanOrEqual(budget);
      expect(view).toContain("Deploy rule");
    }
    const search = await editor.callTool({ name: "harness_search", arguments: { text: "deploy" } });
    expect((JSON.parse(textOf(search)) as { entries: unknown[] }).entries.length).toBeGreaterThan(
      0,
    );
    const revisions = await app.db.harnessRevision.findMany({
      where: { workspaceId },
      select: { via: true },
    });
    expect(revisions.every((revision) => revision.via === "mcp:view (integration-test)")).toBe(
      true,
    );
    await editor.close();
  });
});

describe("the stdio bridge (npx cairn mcp) in a child process", () => {
  it("forwards tools and calls to the running server", async () => {
    const { token } = await tokenFor("member", "bridge");
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        path.resolve(import.meta.dirname, "../bin/cairn.mjs"),
        "mcp",
        "--url",
        `${app.baseUrl}/api/mcp`,
      ],
      env: { ...(process.env as Record<string, string>), CAIRN_TOKEN: token },
      stderr: "pipe",
    });
    const client = new Client({ name: "stdio-client", version: "1.0.0" });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("memory");
    const written = await client.callTool({
      name: "memory",
      arguments: {
        command: "create",
        path: "/persistent/user/bridge.md",
        file_text: "via stdio\n",
      },
    });
    expect(written.isError).toBeFalsy();
    const viewed = await client.callTool({
      name: "memory",
      arguments: { command: "view", path: "/persistent/user/bridge.md" },
    });
    expect(textOf(viewed)).toContain("via stdio");
    const history = await listDirCommits({
      sql: sqlForDb(app.db),
      dirKey: `user:${people.member.userId}`,
    });
    expect(history.commits[0]).toMatchObject({ via: "mcp:bridge (stdio-client)" });
    await client.close();
  });
});
