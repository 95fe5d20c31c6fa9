import path from "node:path";

import type { Page } from "@playwright/test";
import Database from "better-sqlite3";
import { expect, test, type Team } from "./support/fixtures";
import { scriptedModel } from "./support/model";
import { callServerAction, createChat } from "./support/pages";

// The e2e server runs with CAIRN_FAULT_INJECTION=fail-first-commit:fail-me (the first store of
// a change touching "fail-me" fails) and its durability loop (every 5 s): a failed turn commit
// is retried by itself, and turns left running by a dead process are closed as interrupted.

const dora = (team: Team) => team.person({ name: "Dora", role: "member" });
/** An admin of the same workspace: still not the owner of Dora's chats. */
const neighbour = (team: Team) => team.person({ name: "Nell", role: "admin" });
const databaseFile = path.join(process.cwd(), "data", "e2e", "cairn.db");

test.use({ workspaceName: "Durable Co" });

function newChat(page: Page, title: string): Promise<string> {
  return createChat(page, title);
}

test("a commit that failed says it is kept and retrying, then that it was saved", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  await model.reset();
  await model.setScript([
    {
      whenLastUserIncludes: "remember the boat",
      reply: {
        toolCalls: [
          {
            name: "memory",
            arguments: {
              command: "create",
              path: "/persistent/user/fail-me-boat.md",
              file_text: "The boat is called Wren.\n",
            },
          },
        ],
      },
    },
    { whenLastIsToolResult: true, reply: { text: "I will remember the boat." } },
  ]);
  const page = await signIn(dora(team));
  await newChat(page, "Boat");
  await page.getByTestId("chat-input").fill("remember the boat");
  await page.getByTestId("send").click();

  // Never a link to an empty page: the truth, then the outcome once the retry ran.
  await expect(page.getByTestId("save-pending")).toHaveText(
    "Memory not saved yet — kept on the server, retrying…",
  );
  await expect(page.getByTestId("save-recovered")).toBeVisible({ timeout: 30_000 });

  // Saved once, and nothing is left waiting on the failures page.
  await page.goto("/files?dir=user&path=fail-me-boat.md");
  await expect(page.getByTestId("file-content-input")).toHaveValue("The boat is called Wren.\n");
  await page.goto("/files/failures");
  await expect(page.getByTestId("failure-row").filter({ hasText: "fail-me-boat.md" })).toHaveCount(
    0,
  );
});

test("an interrupted turn is shown in the chat and its changes can be applied or discarded", async ({
  team,
  signIn,
}) => {
  const page = await signIn(dora(team));
  const chatId = await newChat(page, "Interrupted");

  // What a process killed mid-turn leaves behind: the user's message, a running turn whose lease
  // has expired, and the journal of what its tools wrote. The server's recovery loop does the rest.
  const db = new Database(databaseFile);
  try {
    const userId = (
      db.prepare(`SELECT id FROM "User" WHERE email = ?`).get(dora(team).email) as { id: string }
    ).id;
    const workspaceId = (
      db.prepare(`SELECT "workspaceId" FROM "Membership" WHERE "userId" = ?`).get(userId) as {
        workspaceId: string;
      }
    ).workspaceId;
    // Dates as Prisma writes them to SQLite.
    const stored = (ms: number) => new Date(ms).toISOString().replace(/Z$/, "+00:00");
    const past = Date.now() - 10 * 60_000;
    const at = new Date(past).toISOString();
    const messages = [
      ["m-kept", "keep the tide table"],
      ["m-dropped", "keep the draft"],
    ] as const;
    for (const [index, [messageId, text]] of messages.entries()) {
      const turnId = `dead-${messageId}`;
      db.prepare(
        `INSERT INTO "ChatMessage" (id, "chatId", role, parts, seq, "createdAt") VALUES (?, ?, 'user', ?, ?, ?)`,
      ).run(messageId, chatId, JSON.stringify([{ type: "text", text }]), index + 1, stored(past));
      db.prepare(
        `INSERT INTO "Turn" (id, "chatId", "userId", status, "userMessageId", "startedAt", "leaseExpiresAt") VALUES (?, ?, ?, 'running', ?, ?, ?)`,
      ).run(turnId, chatId, userId, messageId, stored(past), stored(past + 1_000));
      const file = messageId === "m-kept" ? "tides.md" : "draft.md";
      const entry = {
        turnId,
        harnessDir: "/persistent/user",
        mode: "after-turn",
        owner: `user:${userId}`,
        changes: { created: [{ path: file, content: `${text}\n` }], updated: [], deleted: [] },
        baseCursor: 0,
        base: { [file]: null },
        extraBody: { actor: { userId, workspaceId, role: "member" } },
        session: { chatId },
        revision: 1,
        at: { $date: at },
      };
      db.prepare(
        `INSERT INTO "TurnJournalEntry" ("turnId", "harnessDir", revision, payload, "updatedAt") VALUES (?, '/persistent/user', 1, ?, ?)`,
      ).run(turnId, JSON.stringify(entry), stored(past));
    }
  } finally {
    db.close();
  }

  // The loop runs every 5 s: reload until both turns are closed.
  await expect(async () => {
    await page.reload();
    await expect(page.getByTestId("turn-interrupted")).toHaveCount(2);
  }).toPass({ timeout: 30_000 });
  await expect(page.getByTestId("turn-interrupted").first()).toHaveText(
    "This turn was interrupted — nothing from it was saved; its changes are kept on Commit failures.",
  );

  await page.getByTestId("turn-interrupted").first().getByRole("link").click();
  await expect(page).toHaveURL(/\/files\/failures$/);
  const kept = page.getByTestId("failure-row").filter({ hasText: "tides.md" });
  const dropped = page.getByTestId("failure-row").filter({ hasText: "draft.md" });
  await expect(kept.getByTestId("failure-status")).toHaveText("interrupted");
  await expect(kept.getByTestId("retry-commit")).toHaveText("Apply");

  await kept.getByTestId("retry-commit").click();
  await expect(page.getByTestId("form-info")).toContainText("Committed");
  await expect(kept).toHaveCount(0);
  await dropped.getByTestId("discard-commit").click();
  await expect(page.getByTestId("form-info")).toContainText("Discarded");
  await expect(dropped).toHaveCount(0);

  await page.goto("/files?dir=user&path=tides.md");
  await expect(page.getByTestId("file-content-input")).toHaveValue("keep the tide table\n");
  await page.goto("/files?dir=user");
  await expect(page.getByText("draft.md")).toHaveCount(0);
});

test("a save that clashed says so, retries inline from the chat, and follows what the failures page did", async ({
  team,
  signIn,
}) => {
  // Three turns with a slow model, two people, the Files and failures pages: more than a minute.
  test.setTimeout(150_000);
  // The turn reads plans.md, the model takes its time, and meanwhile the same line is changed on
  // the Files page: the turn's commit clashes and waits for a person (no automatic retry).
  const slow = 1_000;
  const model = scriptedModel();
  await model.reset();
  await model.setScript([
    {
      whenLastUserIncludes: "write the plan",
      reply: {
        toolCalls: [
          {
            name: "memory",
            arguments: {
              command: "create",
              path: "/persistent/user/plans.md",
              file_text: "Trip: Monday\n",
            },
          },
        ],
      },
    },
    ...(
      [
        ["move the trip", "Monday", "Tuesday"],
        ["push the trip", "Tuesday", "Wednesday"],
      ] as const
    ).map(([ask, from, to]) => ({
      whenLastUserIncludes: ask,
      reply: {
        text: "Let me change that.",
        toolCalls: [
          {
            name: "memory",
            arguments: {
              command: "str_replace",
              path: "/persistent/user/plans.md",
              old_str: from,
              new_str: to,
            },
          },
        ],
        delayMs: slow,
      },
    })),
    { whenLastIsToolResult: true, reply: { text: "The plan is updated now.", delayMs: slow } },
  ]);
  const page = await signIn(dora(team));
  await newChat(page, "Plans");
  const send = async (text: string) => {
    await page.getByTestId("chat-input").fill(text);
    await page.getByTestId("send").click();
  };
  await send("write the plan");
  await expect(page.getByTestId("turn-status").last()).toContainText("Memory saved: 1 file");

  const files = await page.context().newPage();
  /** Saves plans.md on the Files page, as the person would in another tab. */
  const savePlans = async (text: string) => {
    await files.goto("/files?dir=user&path=plans.md");
    // Typed once the editor is hydrated: text filled into the server-rendered textarea while
    // React takes it over came out joined with the file's text ("Trip: Friday\nTrip: Monday\n",
    // seen once in CI), and that is what got saved.
    await files.waitForLoadState("networkidle");
    const input = files.getByTestId("file-content-input");
    await input.fill(text);
    await expect(input).toHaveValue(text);
    await files.getByTestId("save-file").click();
    await expect(files.getByTestId("save-status")).toHaveText("Saved.");
  };
  /** Sends `ask` and changes the same line once the turn has read the file (its model call began). */
  const clash = async (ask: string, theirs: string) => {
    await send(ask);
    await expect
      .poll(async () =>
        (await model.requests()).some((request) => JSON.stringify(request).includes(ask)),
      )
      .toBe(true);
    await savePlans(theirs);
  };

  await clash("move the trip", "Trip: Friday\n");
  const line = page.getByTestId("turn-status").last();
  await expect(line.getByTestId("save-failed")).toContainText(
    "Saving memory failed — the same file was changed meanwhile. Nothing is lost: its changes are kept on Commit failures",
    { timeout: 30_000 },
  );
  await expect(line.getByTestId("save-retry")).toHaveText("Retry");
  await expect(line.getByRole("link", { name: "Commit failures" })).toHaveAttribute(
    "href",
    "/files/failures",
  );

  // The server's own check: someone else's turn reads as missing, and nothing is applied.
  const turnId = (await line.getByTestId("trace-link").getAttribute("href"))!.split("/").pop()!;
  const other = await signIn(neighbour(team));
  for (const [name, args] of [
    ["retryTurnSaveAction", { turnId }],
    ["turnSaveStatusAction", { turnId, expected: 0 }],
  ] as const) {
    const response = await callServerAction(other.context().request, {
      pagePath: "/chat",
      file: "app/(app)/chat/turn-status-actions.ts",
      name,
      args: [args],
    });
    expect(await response.text()).toContain('"code":"not_found:turn"');
  }
  await other.context().close();
  await files.goto("/files?dir=user&path=plans.md");
  await expect(files.getByTestId("file-content-input")).toHaveValue("Trip: Friday\n");

  const shots = "test-results/screenshots";
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await line.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${shots}/save-failed-${width}-${scheme}.png` });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 800 });

  // Still the same line: the retry says so in words, and the link to settle it stays.
  await line.getByTestId("save-retry").click();
  await expect(line.getByTestId("save-conflict")).toHaveText(
    "Not saved: plans.md (My memory) changed since this turn read it, in the same place. Nothing is lost — compare both versions and keep one on Commit failures.",
  );
  await expect(line.getByRole("link", { name: "Open Commit failures" })).toHaveAttribute(
    "href",
    "/files/failures",
  );
  await page.screenshot({ path: `${shots}/save-conflict-1280-light.png` });

  // With the other change undone, the inline retry saves the turn's change.
  await savePlans("Trip: Monday\n");
  await line.getByTestId("save-retry").click();
  await expect(line.getByTestId("save-recovered")).toHaveText("Memory saved (after a retry).");
  await expect(line.getByTestId("save-retry")).toHaveCount(0);
  await files.goto("/files?dir=user&path=plans.md");
  await expect(files.getByTestId("file-content-input")).toHaveValue("Trip: Tuesday\n");

  // A clash settled on the failures page (Keep theirs) shows in the open chat without a reload.
  await clash("push the trip", "Trip: Sunday\n");
  await expect(line.getByTestId("save-retry")).toBeVisible({ timeout: 30_000 });
  await files.goto("/files/failures");
  await files
    .getByTestId("failure-row")
    .filter({ hasText: "plans.md" })
    .getByTestId("resolve-theirs")
    .click();
  await expect(files.getByTestId("form-info")).toContainText("Kept the saved version.");
  await expect(line.getByTestId("save-kept-theirs")).toHaveText(
    "Not saved: the newer version of the clashing file was kept instead on Commit failures.",
  );

  // On load, each line says what became of its turn, not what the turn saw at its end.
  await page.reload();
  const lines = page.getByTestId("turn-status");
  await expect(lines.nth(1).getByTestId("save-recovered")).toBeVisible();
  await expect(lines.nth(2).getByTestId("save-kept-theirs")).toBeVisible();
  await expect(page.getByTestId("save-retry")).toHaveCount(0);
});
