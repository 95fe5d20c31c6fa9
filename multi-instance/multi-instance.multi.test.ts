/**
 * Several instances on one PostgreSQL database (issue 11): two `next start` processes of one
 * build, one fresh database, the scripted model server; everything driven over HTTP.
 *
 *     npx next build            # once
 *     npm run test:multi
 *
 * The scenarios marked "needs the auth helper's work" (atomic sign-in limits, one turn at a
 * time per chat, union merge of appends) fail until that branch is merged.
 */
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from "vitest";
import {
  PLANNER,
  PORTS,
  cairn,
  connect,
  createChat,
  createDatabase,
  model,
  sendMessage,
  signIn,
  signInOrThrow,
  startInstance,
  startModelServer,
  waitFor,
  type Proc,
  type Session,
} from "./support";

const editor = { email: "erin@multi.example", password: "multi-editor-pass-1", name: "Erin" };
const writer = { email: "wade@multi.example", password: "multi-writer-pass-2", name: "Wade" };
const guarded = { email: "gus@multi.example", password: "multi-guarded-pass-3", name: "Gus" };
const talker = { email: "tess@multi.example", password: "multi-talker-pass-4", name: "Tess" };

// Room for the 10,000-file company dir below (the default is 2,000 files, 20 MiB): every
// instance started here, restarts included, loads it.
const BIG_DIR_ENV = {
  CAIRN_DIR_MAX_FILES: "20000",
  CAIRN_DIR_MAX_BYTES: String(256 * 1024 * 1024),
};

let database: Awaited<ReturnType<typeof createDatabase>>;
let modelServer: Proc;
const instances: Proc[] = [];
let db: pg.Client;
const bases = PORTS.map((port) => `http://127.0.0.1:${port}`);

beforeAll(async () => {
  database = await createDatabase();
  cairn(database.url, ["db", "migrate"]);
  for (const person of [editor, writer, guarded, talker]) {
    cairn(database.url, [
      "user",
      "create",
      "--email",
      person.email,
      "--password",
      person.password,
      "--role",
      "editor",
      "--workspace",
      "Multi Co",
      "--name",
      person.name,
    ]);
  }
  modelServer = await startModelServer();
  // Sequentially: the first start migrates pg-boss's schema, the second finds it ready.
  for (const port of PORTS)
    instances.push(await startInstance({ port, databaseUrl: database.url, env: BIG_DIR_ENV }));
  db = await connect(database.url);
}, 300_000);

afterAll(async () => {
  await db?.end();
  for (const instance of instances) await instance.kill("SIGTERM");
  await modelServer?.kill("SIGTERM");
  await database?.drop();
}, 60_000);

function showLogsOnFailure() {
  onTestFailed(() => {
    for (const proc of [...instances, modelServer]) {
      console.log(`--- ${proc.label} ---\n${proc.tail(60)}`);
    }
  });
}

/** The refinements of a chat (or the workspace's global ones), oldest first. */
async function refinementsOf(where: { chatId: string; scope: "local" | "global" }) {
  const { rows } = await db.query<{
    id: string;
    status: string;
    error: string | null;
    edits: string;
  }>(
    `SELECT id, status, error, edits FROM "Refinement" WHERE "chatId" = $1 AND scope = $2 ORDER BY "createdAt"`,
    [where.chatId, where.scope],
  );
  return rows;
}

/** The status /refinements shows for a refinement, as served by `base` to `session`. */
async function statusOnPage(base: string, session: Session, id: string): Promise<string | null> {
  const page = await fetch(`${base}/refinements`, { headers: { cookie: session.cookie } });
  expect(page.status).toBe(200);
  const html = await page.text();
  const row = html.indexOf(`data-id="${id}"`);
  if (row < 0) return null;
  return /data-status="([a-z_]+)"/.exec(html.slice(row))?.[1] ?? null;
}

const FINAL = new Set(["applied", "partial", "no_changes", "declined", "failed", "rejected"]);

function planFor(title: string) {
  return {
    summary: `Remember ${title}`,
    rationale: "The user asked for it.",
    expectedOutcome: `Answers use ${title}.`,
    edits: [
      { action: "create", kind: "memory", title, content: `${title} holds.`, reason: "Asked" },
    ],
  };
}

describe("refinements across two instances", () => {
  it("applies exactly one of two simultaneous /refine requests sent to both instances, local and global", async () => {
    showLogsOnFailure();
    await model.reset();
    // The planner answers after 1.5 s, so both requests are in flight together.
    await model.setScript([
      {
        whenSystemIncludes: PLANNER,
        reply: { text: JSON.stringify(planFor("Refined fact X")), delayMs: 1_500 },
      },
    ]);
    const sessions = await Promise.all(bases.map((base) => signInOrThrow(base, editor)));
    const chatId = await createChat(sessions[0]!, "Refine race");
    const otherChatId = await createChat(sessions[1]!, "Refine race, second chat");

    for (const [scope, command] of [
      ["local", "/refine remember fact x"],
      ["global", "/refine --global remember fact x"],
    ] as const) {
      // A local refinement belongs to one chat, so both requests go to the same chat: the chat
      // takes one turn at a time, so the second may be refused (409) before it is recorded. A
      // global one races from two chats, where both are recorded and queued.
      const chats = scope === "local" ? [chatId, chatId] : [chatId, otherChatId];
      const answers = await Promise.all(
        sessions.map((session, index) => sendMessage(session, chats[index]!, command)),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      if (scope === "global") expect(statuses).toEqual([200, 200]);
      else
        expect([
          [200, 200],
          [200, 409],
        ]).toContainEqual(statuses);
      const accepted = statuses.filter((status) => status === 200).length;
      const recorded = async () =>
        (
          await Promise.all([...new Set(chats)].map((id) => refinementsOf({ chatId: id, scope })))
        ).flat();
      // Every accepted request was recorded (queued) before its answer came back.
      expect(await recorded()).toHaveLength(accepted);
      const rows = await waitFor(`the ${scope} refinements to finish`, async () => {
        const found = await recorded();
        return found.every((row) => FINAL.has(row.status)) ? found : null;
      });
      expect(rows.filter((row) => row.status === "applied")).toHaveLength(1);
      for (const refused of rows.filter((row) => row.status !== "applied")) {
        expect(refused.status).toBe("failed");
        expect(refused.edits).toMatch(/refine:(already_exists|changed_during_planning)/);
      }
      const { rows: entries } = await db.query<{ id: string }>(
        `SELECT id FROM "HarnessEntry" WHERE title = 'Refined fact X' AND scope = $1`,
        [scope],
      );
      expect(entries.map((entry) => entry.id)).toEqual(["refined-fact-x"]);
    }

    // The history page shows them (served by either instance).
    const page = await fetch(`${bases[1]}/refinements?scope=global`, {
      headers: { cookie: sessions[1]!.cookie },
    });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('data-status="applied"');
  }, 180_000);
});

describe("sign-in limits across two instances (needs the auth helper's work)", () => {
  it("checks at most 5 of 20 simultaneous wrong passwords, limits the rest, and refuses the right one while limited", async () => {
    showLogsOnFailure();
    const attempts = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        signIn(bases[index % 2]!, { email: guarded.email, password: `wrong-${index}` }),
      ),
    );
    const codes = attempts.map((attempt) => attempt.code);
    expect(attempts.every((attempt) => !attempt.ok)).toBe(true);
    expect(codes.filter((code) => code === "invalid_credentials").length).toBeLessThanOrEqual(5);
    expect(codes.every((code) => code === "invalid_credentials" || code === "rate_limited")).toBe(
      true,
    );
    const right = await signIn(bases[0]!, guarded);
    expect(right.ok).toBe(false);
    expect(right.code).toBe("rate_limited");
  }, 120_000);
});

describe("concurrent turns across two instances (needs the auth helper's work)", () => {
  it("keeps all of 40 lines appended at the end of one file by 40 chats at once: 0 conflicts", async () => {
    showLogsOnFailure();
    await model.reset();
    const file = "/persistent/user/multi-log.md";
    const rules: unknown[] = [
      {
        whenLastUserIncludes: "start the log",
        reply: {
          toolCalls: [
            { name: "memory", arguments: { command: "create", path: file, file_text: "log\n" } },
          ],
        },
      },
    ];
    for (let n = 1; n <= 40; n++) {
      rules.push({
        whenLastUserIncludes: `append line ${n} now`,
        reply: {
          toolCalls: [{ name: "bash", arguments: { command: `echo "line ${n}" >> ${file}` } }],
        },
      });
    }
    await model.setScript(rules);
    const sessions = await Promise.all(bases.map((base) => signInOrThrow(base, writer)));
    const seed = await createChat(sessions[0]!, "Log seed");
    expect((await sendMessage(sessions[0]!, seed, "start the log")).status).toBe(200);
    const chats = await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        createChat(sessions[index % 2]!, `Appender ${index + 1}`),
      ),
    );
    const answers = await Promise.all(
      chats.map((chatId, index) =>
        sendMessage(sessions[index % 2]!, chatId, `append line ${index + 1} now`),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    const content = await waitFor("the 40 appends to be committed or recorded", async () => {
      const { rows } = await db.query<{ content: Buffer }>(
        `SELECT b.content FROM "PersistentFile" f JOIN "FileBody" b ON b.sha256 = f.sha256
         WHERE f.path = 'multi-log.md'`,
      );
      const { rows: records } = await db.query<{ n: string }>(
        `SELECT COUNT(*) AS n FROM "DirCommitRecord"`,
      );
      const text = rows[0]?.content.toString("utf8") ?? "";
      const lines = text.split("\n").filter(Boolean).length - 1;
      return lines + Number(records[0]!.n) >= 40 ? text : null;
    });
    const { rows: conflicts } = await db.query<{ n: string }>(
      `SELECT COUNT(*) AS n FROM "DirCommitRecord" WHERE status = 'conflict'`,
    );
    expect(Number(conflicts[0]!.n)).toBe(0);
    const lines = content.split("\n").filter(Boolean);
    expect(lines).toHaveLength(41);
    expect(lines.slice(1).sort()).toEqual(
      Array.from({ length: 40 }, (_, index) => `line ${index + 1}`).sort(),
    );
  }, 240_000);

  it("answers 10 simultaneous messages into one chat without a server error, each prompt holding only its own message", async () => {
    showLogsOnFailure();
    await model.reset();
    const sessions = await Promise.all(bases.map((base) => signInOrThrow(base, talker)));
    const chatId = await createChat(sessions[0]!, "Crowded chat");
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        sendMessage(sessions[index % 2]!, chatId, `crowded message #${index + 1}`),
      ),
    );
    expect(answers.filter((answer) => answer.status >= 500)).toEqual([]);
    const marker = /crowded message #(\d+)/;
    const text = (content: unknown) =>
      typeof content === "string" ? content : JSON.stringify(content);
    const turns = (await model.requests()).filter((request) =>
      request.messages.some(
        (message) => message.role === "user" && marker.test(text(message.content)),
      ),
    );
    expect(turns.length).toBeGreaterThan(0);
    for (const request of turns) {
      const messages = request.messages.filter(
        (message) => message.role === "user" || message.role === "assistant",
      );
      const last = messages.filter((message) => message.role === "user").at(-1)!;
      expect(text(last.content)).toMatch(marker);
      // Any other crowded message in the prompt belongs to a turn that had finished: it is
      // followed by that turn's answer, never directly by another user message.
      messages.forEach((message, index) => {
        if (message.role !== "user" || message === last || !marker.test(text(message.content))) {
          return;
        }
        expect(messages[index + 1]?.role).toBe("assistant");
      });
    }
  }, 180_000);
});

describe("a company dir of 10,000 files across two instances", () => {
  it("commits one new file from a turn on each instance, both kept beside the 10,000", async () => {
    showLogsOnFailure();
    const { rows: workspaces } = await db.query<{ id: string }>(
      `SELECT id FROM "Workspace" WHERE name = 'Multi Co'`,
    );
    const dirKey = `company:${workspaces[0]!.id}`;
    const { rows: before } = await db.query<{ version: number }>(
      `SELECT version FROM "PersistentDirState" WHERE "dirKey" = $1`,
      [dirKey],
    );
    expect(before).toEqual([]);
    // Seeded directly (a commit each would take minutes): bodies once by hash, the manifest.
    const { createHash } = await import("node:crypto");
    const now = new Date();
    await db.query("BEGIN");
    for (let start = 0; start < 10_000; start += 500) {
      const bodies: unknown[] = [];
      const manifest: unknown[] = [];
      const bodyRows: string[] = [];
      const fileRows: string[] = [];
      for (let index = start; index < start + 500; index += 1) {
        const content = Buffer.from(`# Page ${index}\n\nHandbook page ${index}.\n`);
        const sha256 = createHash("sha256").update(content).digest("hex");
        const b = bodies.length;
        bodies.push(sha256, content, content.byteLength, now);
        bodyRows.push(`($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4})`);
        const m = manifest.length;
        manifest.push(
          dirKey,
          `handbook/${index % 40}/page-${index}.md`,
          content.byteLength,
          sha256,
          now,
        );
        fileRows.push(`($${m + 1}, $${m + 2}, true, $${m + 3}, $${m + 4}, $${m + 5})`);
      }
      await db.query(
        `INSERT INTO "FileBody" (sha256, content, size, "touchedAt") VALUES ${bodyRows.join(", ")}`,
        bodies,
      );
      await db.query(
        `INSERT INTO "PersistentFile" ("dirKey", path, "isText", size, sha256, "updatedAt") VALUES ${fileRows.join(", ")}`,
        manifest,
      );
    }
    await db.query(
      `INSERT INTO "PersistentDirState" ("dirKey", version, "updatedAt", "historyBytes") VALUES ($1, 1, $2, 0)`,
      [dirKey, now],
    );
    await db.query("COMMIT");

    await model.reset();
    await model.setScript(
      ["a", "b"].map((name) => ({
        whenLastUserIncludes: `file the big note ${name}`,
        reply: {
          toolCalls: [
            {
              name: "memory",
              arguments: {
                command: "create",
                path: `/persistent/company/notes/from-${name}.md`,
                file_text: `Filed from instance ${name}.\n`,
              },
            },
          ],
        },
      })),
    );
    const sessions = await Promise.all(bases.map((base) => signInOrThrow(base, editor)));
    const chats = await Promise.all(
      sessions.map((session, index) => createChat(session, `Big dir ${index}`)),
    );
    const answers = await Promise.all(
      ["a", "b"].map((name, index) =>
        sendMessage(sessions[index]!, chats[index]!, `file the big note ${name}`),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const files = await waitFor("both notes to be committed", async () => {
      const { rows } = await db.query<{ n: string }>(
        `SELECT COUNT(*) AS n FROM "PersistentFile" WHERE "dirKey" = $1`,
        [dirKey],
      );
      return Number(rows[0]!.n) === 10_002 ? Number(rows[0]!.n) : null;
    });
    expect(files).toBe(10_002);
    const { rows: notes } = await db.query<{ path: string; content: Buffer }>(
      `SELECT f.path, b.content FROM "PersistentFile" f JOIN "FileBody" b ON b.sha256 = f.sha256
       WHERE f."dirKey" = $1 AND f.path LIKE 'notes/%' ORDER BY f.path`,
      [dirKey],
    );
    expect(notes.map((note) => [note.path, note.content.toString("utf8")])).toEqual([
      ["notes/from-a.md", "Filed from instance a.\n"],
      ["notes/from-b.md", "Filed from instance b.\n"],
    ]);
    const { rows: records } = await db.query<{ n: string }>(
      `SELECT COUNT(*) AS n FROM "DirCommitRecord" WHERE changes LIKE '%from-%'`,
    );
    expect(Number(records[0]!.n)).toBe(0);
    const { rows: state } = await db.query<{ version: number }>(
      `SELECT version FROM "PersistentDirState" WHERE "dirKey" = $1`,
      [dirKey],
    );
    expect(Number(state[0]!.version)).toBe(3);
  }, 240_000);
});

describe("a refinement requested just before its instance dies", () => {
  it("still runs, once, on the other instance", async () => {
    showLogsOnFailure();
    const [first, second] = instances as [Proc, Proc];
    // Only the first instance may pick the job up: the second is down while it is requested.
    await second.kill("SIGTERM");
    await model.reset();
    await model.setScript([
      {
        whenSystemIncludes: PLANNER,
        // Long enough to kill the instance while it waits for the plan.
        reply: { text: JSON.stringify(planFor("Survivor fact")), delayMs: 8_000 },
      },
    ]);
    const session: Session = await signInOrThrow(bases[0]!, editor);
    const chatId = await createChat(session, "Doomed instance");
    expect((await sendMessage(session, chatId, "/refine keep the survivor fact")).status).toBe(200);
    // The first instance is planning (its planner request arrived, the answer is streaming) …
    await waitFor("the first instance to start planning", async () =>
      (await model.requests()).some((request) =>
        JSON.stringify(request.messages).includes(PLANNER),
      ),
    );
    const [requested] = await refinementsOf({ chatId, scope: "local" });
    expect(requested?.status).toBe("running");
    // The person sees it running on /refinements.
    expect(await statusOnPage(bases[0]!, session, requested!.id)).toBe("running");
    // … when it dies without any cleanup.
    await first.kill("SIGKILL");
    instances[1] = await startInstance({ port: PORTS[1], databaseUrl: database.url });
    const rows = await waitFor(
      "the refinement to finish on the other instance",
      async () => {
        const found = await refinementsOf({ chatId, scope: "local" });
        return found.every((row) => FINAL.has(row.status)) ? found : null;
      },
      120_000,
    );
    expect(rows.map((row) => row.status)).toEqual(["applied"]);
    const { rows: entries } = await db.query<{ id: string }>(
      `SELECT id FROM "HarnessEntry" WHERE title = 'Survivor fact'`,
    );
    expect(entries.map((entry) => entry.id)).toEqual(["survivor-fact"]);
    const plannings = (await model.requests()).filter((request) =>
      JSON.stringify(request.messages).includes(PLANNER),
    );
    expect(plannings.length).toBeGreaterThanOrEqual(2);
    // The other instance serves the outcome (a session is valid on every instance).
    expect(await statusOnPage(bases[1]!, session, requested!.id)).toBe("applied");
  }, 240_000);
});

describe("automatic commit retries on the job queue", () => {
  it("retries a turn's failed commit as a job, once, on whichever instance takes it", async () => {
    showLogsOnFailure();
    // Instance A again, now failing the first store attempt of this change set (as a database
    // hiccup at commit time would); retries become due after half a second.
    instances[0] = await startInstance({
      port: PORTS[0],
      databaseUrl: database.url,
      env: {
        ...BIG_DIR_ENV,
        CAIRN_FAULT_INJECTION: "fail-first-commit:retry-me",
        CAIRN_COMMIT_RETRY_DELAY_MS: "500",
        CAIRN_DURABILITY_INTERVAL_MS: "500",
      },
    });
    await model.reset();
    const file = "/persistent/user/retry-me.md";
    await model.setScript([
      {
        whenLastUserIncludes: "write the retry note",
        reply: {
          toolCalls: [
            {
              name: "memory",
              arguments: { command: "create", path: file, file_text: "kept by a retry job\n" },
            },
          ],
        },
      },
    ]);
    const session = await signInOrThrow(bases[0]!, talker);
    const chatId = await createChat(session, "Retry on the queue");
    expect((await sendMessage(session, chatId, "write the retry note")).status).toBe(200);
    const record = await waitFor("the record to be retried", async () => {
      const { rows } = await db.query<{ id: string; status: string; resolution: string | null }>(
        `SELECT id, status, resolution FROM "DirCommitRecord" WHERE changes LIKE '%retry-me.md%'`,
      );
      return rows.length === 1 && rows[0]!.status === "resolved" ? rows[0]! : null;
    });
    expect(record.resolution).toBe("retried");
    const { rows: commits } = await db.query<{ n: string }>(
      `SELECT COUNT(*) AS n FROM "DirCommit" WHERE created LIKE '%retry-me.md%'`,
    );
    expect(Number(commits[0]!.n)).toBe(1);
    // It ran as a job of the queue, keyed by its record.
    const { rows: jobs } = await db.query<{ state: string }>(
      `SELECT state FROM pgboss.job WHERE name = 'commit-retry' AND singleton_key = $1
       UNION ALL
       SELECT state FROM pgboss.archive WHERE name = 'commit-retry' AND singleton_key = $1`,
      [record.id],
    );
    expect(jobs.map((job) => job.state)).toContain("completed");
  }, 240_000);
});
