import { mkdirSync } from "node:fs";
import type { Page } from "@playwright/test";
import { expect, test, type Team } from "./support/fixtures";
import { scriptedModel } from "./support/model";
import { callServerAction, createChat, send } from "./support/pages";

const member = (team: Team) => team.person({ name: "Mia", role: "member" });
const editor = (team: Team) => team.person({ name: "Eli", role: "editor" });

test.use({ workspaceName: "Memory Co" });

/** A distinctive phrase of PLANNING_SYSTEM_PROMPT (lib/harness/refine/prompts.ts). */
const PLANNER = "You refine an agent's continual harness";

test.beforeAll(() => {
  mkdirSync("test-results/screenshots", { recursive: true });
});

function item(page: Page, title: string) {
  return page.getByTestId("memory-item").filter({
    has: page.getByTestId("memory-title").getByText(title, { exact: true }),
  });
}

test("on a fresh workspace the Memory and Harness pages explain what memory is and how it is written", async ({
  team,
  signIn,
}) => {
  const page = await signIn(member(team));
  await page.getByTestId("nav-memory").click();
  await expect(page).toHaveURL(/\/memory$/);
  await expect(page.getByRole("heading", { name: "Memory", exact: true })).toBeVisible();
  await expect(page.getByTestId("memory-empty")).toContainText("remember that I prefer");
  await expect(page.getByTestId("memory-empty")).toContainText("/refine");
  await expect(page.getByTestId("memory-item")).toHaveCount(0);
  await page.screenshot({ path: "test-results/screenshots/desktop-light-memory-empty.png" });

  await page.goto("/harness");
  await expect(page.getByTestId("harness-empty")).toContainText("Entries get written when");
  await expect(page.getByText("Try other filters")).toHaveCount(0);
  await page.goto("/harness?q=nothing-like-this");
  await expect(page.getByTestId("empty-state")).toContainText("No entries match these filters");
});

test("the Memory page lists what a turn and a refinement wrote, with where each came from; edit and delete work", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  await model.reset();
  await model.setScript([
    // First: the planner's request quotes the conversation, which would match the next rule.
    {
      whenSystemIncludes: PLANNER,
      reply: {
        text: JSON.stringify({
          summary: "Remember the tea preference",
          rationale: "The user asked to remember it.",
          expectedOutcome: "Answers offer tea.",
          edits: [
            {
              action: "create",
              kind: "memory",
              title: "Drinks",
              content: "Mia likes tea.",
              reason: "Stated by the user",
            },
          ],
        }),
      },
    },
    {
      whenLastUserIncludes: "I prefer short answers",
      reply: {
        toolCalls: [
          {
            name: "create_entry",
            arguments: {
              kind: "memory",
              title: "Answer length",
              content: "Mia prefers short answers.",
            },
          },
          {
            name: "memory",
            arguments: {
              command: "create",
              path: "/persistent/user/about-mia.md",
              file_text: "Mia works in logistics.\n",
            },
          },
        ],
      },
    },
    { whenLastIsToolResult: true, reply: { text: "Noted: short answers." } },
  ]);
  const page = await signIn(member(team));
  const chatId = await createChat(page, "Preferences");
  await send(page, "Please remember: I prefer short answers");
  await expect(page.getByTestId("assistant-text").last()).toContainText("Noted: short answers.");
  await expect(page.getByTestId("turn-status").last()).toContainText("Memory saved: 1 file");
  await send(page, "/refine remember that I like tea");
  await expect(page.getByTestId("refinement-card")).toHaveAttribute("data-status", "applied", {
    timeout: 30_000,
  });
  await expect(page.getByTestId("refinement-card")).toContainText("Remember the tea preference");

  await page.goto("/memory");
  await expect(page.getByTestId("memory-item")).toHaveCount(3);

  // Written by the turn: linked to its chat.
  const byTurn = item(page, "Answer length");
  await expect(byTurn).toContainText("Mia prefers short answers.");
  await expect(byTurn).toContainText("Chat “Preferences”");
  await expect(byTurn.getByTestId("memory-origin").first()).toContainText("A chat turn");
  await expect(byTurn.getByTestId("memory-origin-link").first()).toHaveAttribute(
    "href",
    `/chat/${chatId}`,
  );
  // The memory file the turn saved.
  const file = item(page, "about-mia.md");
  await expect(file).toHaveAttribute("data-kind", "file");
  await expect(file).toContainText("Mia works in logistics.");
  await expect(file.getByTestId("memory-origin")).toContainText("A chat turn");
  await expect(file.getByTestId("memory-origin-link")).toHaveAttribute("href", `/chat/${chatId}`);
  // Written by the refinement: linked to the refinement.
  const byRefinement = item(page, "Drinks");
  await expect(byRefinement.getByTestId("memory-origin").first()).toContainText(
    "A refinement “Remember the tea preference”",
  );
  await byRefinement.getByTestId("memory-origin-link").first().click();
  await expect(page).toHaveURL(/\/refinements\/[^/]+$/);
  await expect(page.getByTestId("refinement-title")).toHaveText("Remember the tea preference");

  // Screenshots of the full list, desktop and phone, light and dark; no sideways scroll on a phone.
  await page.goto("/memory");
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [device, viewport] of [
      ["desktop", { width: 1280, height: 800 }],
      ["phone", { width: 390, height: 844 }],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.reload();
      await expect(page.getByTestId("memory-item")).toHaveCount(3);
      await page.screenshot({
        path: `test-results/screenshots/${device}-${scheme}-memory-list.png`,
        fullPage: true,
      });
      const [scrollWidth, innerWidth] = await page.evaluate(() => [
        document.documentElement.scrollWidth,
        window.innerWidth,
      ]);
      expect(scrollWidth, `/memory at ${viewport.width} px`).toBeLessThanOrEqual(innerWidth);
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: "light" });

  // Filters and search.
  await page.goto("/memory");
  await page.getByTestId("memory-filter-file").click();
  await expect(page.getByTestId("memory-item")).toHaveCount(1);
  await page.getByTestId("memory-filter-all").click();
  await page.getByTestId("memory-search").fill("tea");
  await expect(page.getByTestId("memory-item")).toHaveCount(1);
  await page.getByTestId("memory-search").fill("");

  // Edit a memory entry: the change is saved as a new version, and says who made it.
  await item(page, "Drinks").getByTestId("memory-edit").click();
  await page.getByTestId("memory-edit-content").fill("Mia likes green tea, no sugar.");
  await page.getByTestId("memory-save").click();
  await expect(item(page, "Drinks").getByTestId("memory-content")).toHaveText(
    "Mia likes green tea, no sugar.",
  );
  await page.reload();
  const edited = item(page, "Drinks");
  await expect(edited.getByTestId("memory-content")).toHaveText("Mia likes green tea, no sugar.");
  await expect(edited.getByTestId("memory-origin").last()).toContainText("You");

  // Edit the memory file.
  await item(page, "about-mia.md").getByTestId("memory-edit").click();
  await page.getByTestId("memory-edit-content").fill("Mia works in shipping.\n");
  await page.getByTestId("memory-save").click();
  await expect(page.getByTestId("memory-edit-content")).toHaveCount(0);
  await page.reload();
  await expect(item(page, "about-mia.md").getByTestId("memory-content")).toHaveText(
    "Mia works in shipping.",
  );
  await expect(item(page, "about-mia.md").getByTestId("memory-origin")).toContainText(
    "You, by hand",
  );

  // Delete an entry and the file, each after a confirmation.
  await item(page, "Answer length").getByTestId("memory-delete").click();
  await expect(page.getByTestId("memory-delete-confirm")).toContainText("Delete this memory?");
  await page.getByTestId("memory-delete-confirm-button").click();
  await expect(item(page, "Answer length")).toHaveCount(0);
  await item(page, "about-mia.md").getByTestId("memory-delete").click();
  await page.getByTestId("memory-delete-confirm-button").click();
  await expect(item(page, "about-mia.md")).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId("memory-item")).toHaveCount(1);
  await expect(page.getByTestId("memory-title")).toHaveText(["Drinks"]);
});

test("a member sees a workspace memory read-only and the server refuses their edit; an editor may change it", async ({
  team,
  signIn,
}) => {
  const editorPage = await signIn(editor(team));
  const created = await callServerAction(editorPage.context().request, {
    pagePath: "/harness/new",
    file: "app/(app)/harness/actions.ts",
    name: "createEntryAction",
    args: [
      {
        kind: "memory",
        location: { scope: "global" },
        title: "Office",
        content: "The office is in Oslo.",
      },
    ],
  });
  expect(created.status()).toBe(200);

  const page = await signIn(member(team));
  await page.goto("/memory");
  const office = item(page, "Office");
  await expect(office).toHaveAttribute("data-scope", "global");
  await expect(office.getByTestId("memory-read-only")).toBeVisible();
  await expect(office.getByTestId("memory-edit")).toHaveCount(0);
  await expect(office.getByTestId("memory-delete")).toHaveCount(0);
  await expect(office.getByTestId("memory-origin").first()).toContainText("Eli");

  for (const name of ["updateMemoryEntryAction", "deleteMemoryEntryAction"]) {
    const response = await callServerAction(page.context().request, {
      pagePath: "/memory",
      file: "app/(app)/memory/actions.ts",
      name,
      args: [
        {
          id: "office",
          location: { scope: "global" },
          expectedVersion: 1,
          title: "Office",
          content: "Members rewrote this.",
        },
      ],
    });
    expect(response.status(), `${name}: ${await response.text()}`).toBe(403);
  }
  await page.reload();
  await expect(item(page, "Office").getByTestId("memory-content")).toHaveText(
    "The office is in Oslo.",
  );

  await editorPage.goto("/memory");
  await item(editorPage, "Office").getByTestId("memory-edit").click();
  await editorPage.getByTestId("memory-edit-content").fill("The office is in Bergen.");
  await editorPage.getByTestId("memory-save").click();
  await expect(item(editorPage, "Office").getByTestId("memory-content")).toHaveText(
    "The office is in Bergen.",
  );
});
