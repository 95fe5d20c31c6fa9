import { beforeAll, describe, expect, it } from "vitest";

import { BASE_PROMPT } from "@/lib/chat/base-prompt";
import { testDatabaseProvider } from "@/lib/db/testing";
import { createHarness, streamHarness, type Actor, type HarnessDefinition } from "@/lib/harness";
import { drain, scriptedModel, textReply, toolCallReply, toolResults } from "@/lib/harness/testing";
import type { AppExtraBody, AppSession } from "@/lib/workspace-dirs/app-dirs";
import { saveOverCurrent } from "@/lib/workspace-dirs/testing";
import { approveSuggestion, rejectSuggestion } from "./review";
import { suggestGlobalEntryChange } from "./suggest-entry";
import { getSuggestion, listSuggestions } from "./suggestion-store";
import { registerReviewTestWorld } from "./testing";

// Issue 27, item 1: a member's write to company knowledge or a global entry becomes a
// suggestion; editors approve (as any write, with provenance), approve over a conflict, edit then
// approve, or reject with a reason; the approver's role is read again at that moment.

const member: Actor = { userId: "u-member", workspaceId: "w1", role: "member" };
const editor: Actor = { userId: "u-editor", workspaceId: "w1", role: "editor" };
const demoted: Actor = { userId: "u-demoted", workspaceId: "w1", role: "editor" };

const world = registerReviewTestWorld([member, editor, demoted]);
const COMPANY = "/persistent/company";
const POLICY = ["# Travel", "Book economy.", "Receipts within 30 days.", "Ask your lead.", ""].join(
  "\n",
);

beforeAll(async () => {
  await world.database.db.chat.create({
    data: { id: "c-member", workspaceId: "w1", userId: member.userId, title: "c" },
  });
  await save(editor, "policies/travel.md", POLICY);
});

async function save(actor: Actor, path: string, content: string) {
  const saved = await saveOverCurrent(world.service, { actor, harnessDir: COMPANY, path, content });
  expect(saved.status).toBe("saved");
}

const read = async (path: string) =>
  (await world.service.readFile({ actor: editor, harnessDir: COMPANY, path }))?.text ?? null;

/** A member's chat turn whose scripted model edits the travel policy, then says why. */
async function memberTurn(turnId: string, oldStr: string, newStr: string) {
  await world.database.db.turn.create({
    data: { id: turnId, chatId: "c-member", userId: member.userId, status: "running" },
  });
  const model = scriptedModel([
    toolCallReply(
      "memory",
      {
        command: "str_replace",
        path: `${COMPANY}/policies/travel.md`,
        old_str: oldStr,
        new_str: newStr,
      },
      "c1",
    ),
    textReply(`The policy says "${oldStr}", but finance changed it: "${newStr}".`),
  ]);
  const definition: HarnessDefinition<AppExtraBody, AppSession> = {
    model: () => model,
    instructions: BASE_PROMPT,
    persistentDirs: world.service.dirs,
    commitLog: world.service.commitLog,
  };
  const result = await drain(
    streamHarness({
      harness: definition,
      messages: [
        { id: "m1", role: "user", parts: [{ type: "text", text: "Fix the travel policy." }] },
      ],
      session: { chatId: "c-member" },
      extraBody: { actor: member },
      turnId,
    }),
  );
  return { result, model };
}

async function suggestionOfTurn(turnId: string) {
  const suggestion = await getSuggestion(world.deps.sql, {
    workspaceId: "w1",
    id: `turn:${turnId}:${COMPANY}`,
  });
  expect(suggestion).not.toBeNull();
  return suggestion!;
}

describe(`suggestions and their review on ${testDatabaseProvider()}`, () => {
  it("keeps a member's refused write as a suggestion: the tool says 'suggested for review', nothing is applied", async () => {
    const { result, model } = await memberTurn(
      "t-1",
      "Receipts within 30 days.",
      "Receipts within 60 days.",
    );
    expect(result.status).toBe("completed");
    const [toolResult] = toolResults(model.doStreamCalls[1]!);
    expect(String(toolResult)).toContain("suggested for review");
    expect(String(toolResult)).not.toMatch(/not permitted|refused/);
    expect(result.persistence.status).toBe("succeeded");
    const commits = result.persistence.status === "succeeded" ? result.persistence.commits : [];
    const company = commits.find((commit) => commit.harnessDir === COMPANY);
    expect(company).toMatchObject({ status: "suggested", suggestionId: `turn:t-1:${COMPANY}` });

    expect(await read("policies/travel.md")).toBe(POLICY);
    const suggestion = await suggestionOfTurn("t-1");
    expect(suggestion).toMatchObject({
      status: "open",
      target: "dir",
      source: "turn",
      authorId: member.userId,
      authorName: member.userId,
      chatId: "c-member",
      turnId: "t-1",
      harnessDir: COMPANY,
    });
    expect(suggestion.note).toContain("finance changed it");
    expect(suggestion.dir!.base).toEqual({ "policies/travel.md": POLICY });
    expect(suggestion.dir!.changes.updated).toEqual([
      { path: "policies/travel.md", content: POLICY.replace("30 days", "60 days") },
    ]);
  });

  it("approves through the commit engine as the approver, with 'suggested by X, approved by Y'", async () => {
    const suggestion = await suggestionOfTurn("t-1");
    const approved = await approveSuggestion(world.deps, { actor: editor, id: suggestion.id });
    expect(approved.status).toBe("approved");
    expect(await read("policies/travel.md")).toBe(POLICY.replace("30 days", "60 days"));
    const commit = await world.database.db.dirCommit.findFirst({
      where: { dirKey: "company:w1" },
      orderBy: { version: "desc" },
    });
    expect(commit).toMatchObject({ actorId: editor.userId, source: "review" });
    expect(commit!.via).toContain(`suggested by ${member.userId}, approved by ${editor.userId}`);
    const after = await getSuggestion(world.deps.sql, { workspaceId: "w1", id: suggestion.id });
    expect(after).toMatchObject({ status: "approved", decidedById: editor.userId });
    // Both steps are in the audit log, each written with the row it records, with its door.
    const events = await world.database.db.auditEvent.findMany({
      where: { targetType: "suggestion", targetId: suggestion.id },
      orderBy: { createdAt: "asc" },
    });
    expect(events.map((event) => [event.kind, event.actorId, event.via])).toEqual([
      ["suggestion.created", member.userId, "chat"],
      ["suggestion.decided", editor.userId, "web"],
    ]);
    expect(JSON.parse(events[1]!.details)).toMatchObject({
      decision: "approved",
      suggestedBy: member.userId,
    });
    // Decided once: approving again is refused, nothing applied twice.
    await expect(
      approveSuggestion(world.deps, { actor: editor, id: suggestion.id }),
    ).rejects.toMatchObject({
      code: "conflict:suggestion",
    });
  });

  it("merges onto a newer version when the lines differ; a clash applies nothing, shows both texts, and is approved merged", async () => {
    const base = (await read("policies/travel.md"))!;
    // Two suggestions against the same version; then an editor changes the first line.
    await memberTurn("t-2", "Ask your lead.", "Ask your lead or finance.");
    await memberTurn("t-3", "Book economy.", "Book economy; business above 6 hours.");
    await save(editor, "policies/travel.md", base.replace("Book economy.", "Book economy class."));

    // t-2 touches another line: three-way merged.
    const clean = await approveSuggestion(world.deps, {
      actor: editor,
      id: (await suggestionOfTurn("t-2")).id,
    });
    expect(clean.status).toBe("approved");
    expect(await read("policies/travel.md")).toContain("Book economy class.");
    expect(await read("policies/travel.md")).toContain("Ask your lead or finance.");

    // t-3 changes the line the editor changed: a conflict, nothing applied, still open.
    const before = await read("policies/travel.md");
    const t3 = await suggestionOfTurn("t-3");
    const clash = await approveSuggestion(world.deps, { actor: editor, id: t3.id });
    expect(clash.status).toBe("conflict");
    if (clash.status !== "conflict") return;
    expect(clash.conflicts).toHaveLength(1);
    expect(clash.conflicts[0]).toMatchObject({ path: "policies/travel.md" });
    expect(clash.conflicts[0]!.current).toContain("Book economy class.");
    expect(clash.conflicts[0]!.proposed).toContain("business above 6 hours");
    expect(await read("policies/travel.md")).toBe(before);
    expect((await getSuggestion(world.deps.sql, { workspaceId: "w1", id: t3.id }))!.status).toBe(
      "open",
    );

    // Merged by the approver: their text, over the version there now.
    const merged = before!.replace(
      "Book economy class.",
      "Book economy class; business above 6 hours.",
    );
    const done = await approveSuggestion(world.deps, {
      actor: editor,
      id: t3.id,
      edit: { target: "dir", files: { "policies/travel.md": merged } },
    });
    expect(done.status).toBe("approved");
    expect(await read("policies/travel.md")).toBe(merged);
    expect(
      (await getSuggestion(world.deps.sql, { workspaceId: "w1", id: t3.id }))!.applied,
    ).toMatchObject({
      edited: true,
    });
  });

  it("edit then approve writes the approver's text", async () => {
    await memberTurn("t-4", "Receipts within 60 days.", "Receipts within 90 days!!");
    const edited = (await read("policies/travel.md"))!.replace(
      "Receipts within 60 days.",
      "Receipts within 90 days.",
    );
    const result = await approveSuggestion(world.deps, {
      actor: editor,
      id: (await suggestionOfTurn("t-4")).id,
      edit: { target: "dir", files: { "policies/travel.md": edited } },
    });
    expect(result.status).toBe("approved");
    expect(await read("policies/travel.md")).toBe(edited);
  });

  it("rejects with a reason the suggester reads; a reason is required; a member cannot decide", async () => {
    await memberTurn("t-5", "Receipts within 90 days.", "No receipts needed.");
    const id = (await suggestionOfTurn("t-5")).id;
    await expect(
      rejectSuggestion(world.deps, { actor: editor, id, reason: "  " }),
    ).rejects.toMatchObject({
      code: "validation:suggestion",
    });
    await expect(
      rejectSuggestion(world.deps, { actor: member, id, reason: "mine" }),
    ).rejects.toMatchObject({ code: "forbidden:suggestion" });
    await expect(approveSuggestion(world.deps, { actor: member, id })).rejects.toMatchObject({
      code: "forbidden:suggestion",
    });
    await rejectSuggestion(world.deps, {
      actor: editor,
      id,
      reason: "Finance still needs receipts.",
    });
    const mine = await listSuggestions(world.deps.sql, {
      workspaceId: "w1",
      status: "decided",
      authorId: member.userId,
    });
    expect(mine.find((s) => s.id === id)).toMatchObject({
      status: "rejected",
      decisionNote: "Finance still needs receipts.",
      decidedByName: editor.userId,
    });
    expect(await read("policies/travel.md")).not.toContain("No receipts needed.");
  });

  it("reads the approver's role at approval: an editor demoted after opening the page is refused", async () => {
    await memberTurn("t-6", "Book economy class; business above 6 hours.", "Fly first class.");
    const id = (await suggestionOfTurn("t-6")).id;
    const before = await read("policies/travel.md");
    // The page was opened as an editor (the Actor says so); the role changes before the click.
    await world.database.db.membership.update({
      where: { userId_workspaceId: { userId: demoted.userId, workspaceId: "w1" } },
      data: { role: "member" },
    });
    await expect(approveSuggestion(world.deps, { actor: demoted, id })).rejects.toMatchObject({
      code: "forbidden:suggestion",
    });
    await expect(
      rejectSuggestion(world.deps, { actor: demoted, id, reason: "no" }),
    ).rejects.toMatchObject({ code: "forbidden:suggestion" });
    expect(await read("policies/travel.md")).toBe(before);
    expect((await getSuggestion(world.deps.sql, { workspaceId: "w1", id }))!.status).toBe("open");
  });

  it("turns a member agent's global entry write into a suggestion; approval writes it with provenance", async () => {
    const storage = world.deps.harnessStorage;
    const model = scriptedModel([
      toolCallReply(
        "create_entry",
        {
          kind: "memory",
          title: "Expense tool",
          content: "Use Ledgerly for expenses.",
          global: true,
        },
        "c1",
      ),
      textReply("Suggested."),
    ]);
    const definition: HarnessDefinition<AppExtraBody, AppSession> = {
      model: () => model,
      instructions: BASE_PROMPT,
      store: ({ extraBody, session }) =>
        createHarness({ storage, actor: extraBody.actor, chatId: session?.chatId ?? null }),
      suggestGlobalEntry: ({ extraBody, session, proposal, turnId }) =>
        suggestGlobalEntryChange({
          sql: world.deps.sql,
          harnessStorage: storage,
          actor: extraBody.actor,
          proposal,
          source: "turn",
          chatId: session?.chatId ?? null,
          turnId: turnId ?? null,
        }),
    };
    await drain(
      streamHarness({
        harness: definition,
        messages: [
          { id: "m1", role: "user", parts: [{ type: "text", text: "Remember for all." }] },
        ],
        session: { chatId: "c-member" },
        extraBody: { actor: member },
        turnId: "t-entry",
      }),
    );
    const [toolResult] = toolResults(model.doStreamCalls[1]!);
    expect(String(toolResult)).toContain("Suggested for review");
    const global = createHarness({ storage, actor: editor, chatId: null });
    expect((await global.listEntries({ scope: "global" })).items).toEqual([]);

    const [suggestion] = (
      await listSuggestions(world.deps.sql, { workspaceId: "w1", status: "open" })
    ).filter((s) => s.target === "entry");
    expect(suggestion).toMatchObject({ turnId: "t-entry", chatId: "c-member" });
    expect(suggestion!.entry).toMatchObject({
      action: "create",
      kind: "memory",
      baseVersion: null,
      fields: { title: "Expense tool", content: "Use Ledgerly for expenses." },
    });
    const result = await approveSuggestion(world.deps, { actor: editor, id: suggestion!.id });
    expect(result.status).toBe("approved");
    const [entry] = (await global.listEntries({ scope: "global" })).items;
    expect(entry).toMatchObject({ title: "Expense tool", content: "Use Ledgerly for expenses." });
    const revisions = await global.history({ entryId: entry!.id, kind: "memory", scope: "global" });
    expect(JSON.stringify(revisions)).toContain(
      `suggested by ${member.userId}, approved by ${editor.userId}`,
    );

    // An update suggested against version 1 clashes once an editor moved the entry on.
    const update = await suggestGlobalEntryChange({
      sql: world.deps.sql,
      harnessStorage: storage,
      actor: member,
      proposal: {
        action: "update",
        kind: "memory",
        id: entry!.id,
        expectedVersion: 1,
        content: "Use Ledgerly 2.",
      },
      source: "entry-page",
      note: "renamed",
    });
    await global.updateEntry({
      kind: "memory",
      id: entry!.id,
      expectedVersion: 1,
      global: true,
      content: "Use Ledgerly (EU).",
    });
    const clash = await approveSuggestion(world.deps, { actor: editor, id: update.id });
    expect(clash).toMatchObject({ status: "conflict" });
    const edited = await approveSuggestion(world.deps, {
      actor: editor,
      id: update.id,
      edit: { target: "entry", fields: { content: "Use Ledgerly 2 (EU)." } },
    });
    expect(edited.status).toBe("approved");
    expect(
      (await global.getEntry({ kind: "memory", id: entry!.id, scope: "global" }))!.content,
    ).toBe("Use Ledgerly 2 (EU).");
  });
});
