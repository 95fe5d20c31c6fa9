import type { Page } from "@playwright/test";
import { expect, test, type Team } from "./support/fixtures";
import { scriptedModel } from "./support/model";
import { createChat, send } from "./support/pages";

// Issue 24: the header's search (⌘K / Ctrl+K) over chats, company knowledge and memory.

const eve = (team: Team) => team.person({ name: "Eve", role: "editor" });
const mia = (team: Team) => team.person({ name: "Mia", role: "member" });
const max = (team: Team) => team.person({ name: "Max", role: "member" });
const ada = (team: Team) => team.person({ name: "Ada", role: "admin" });

test.use({ workspaceName: "Search Co" });

const create = (path: string, fileText: string) => ({
  toolCalls: [{ name: "memory", arguments: { command: "create", path, file_text: fileText } }],
});

async function openSearch(page: Page, query: string) {
  const input = page.getByTestId("search-input");
  // Right after a navigation the page may not be hydrated yet, and a key pressed before the
  // shortcut's listener is attached goes to the browser: press again until the dialog opens.
  await expect(async () => {
    await page.keyboard.press("ControlOrMeta+k");
    await expect(input).toBeFocused({ timeout: 1_000 });
  }).toPass({ timeout: 15_000 });
  await input.fill(query);
}

test("⌘K finds an older chat's message and a company document; a member never sees another's notes", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  await model.reset();
  await model.setScript([
    {
      whenLastUserIncludes: "write the handbook",
      reply: create(
        "/persistent/company/handbook.md",
        "# Handbook\n\nExpense reports go through the marmalade form, signed by a lead.\n",
      ),
    },
    {
      whenLastUserIncludes: "remember my note",
      reply: create("/persistent/user/notes.md", "My private zeppelin itinerary for June.\n"),
    },
    { whenLastIsToolResult: true, reply: { text: "Done." } },
    { reply: { text: "Noted." } },
  ]);

  // Eve's older chat holds the phrase; a newer chat comes after it.
  const page = await signIn(eve(team));
  const older = await createChat(page, "Planning");
  await send(page, "We should plan the kestrel migration before the audit.");
  await expect(page.getByTestId("turn-status").last()).toBeVisible();
  for (let i = 0; i < 6; i += 1) {
    await send(page, `Filler message number ${i} about nothing in particular.`);
    await expect(page.getByTestId("message-assistant")).toHaveCount(i + 2);
  }
  await createChat(page, "Newer");
  await send(page, "write the handbook");
  await expect(page.getByTestId("turn-status").last()).toContainText("Memory saved: 1 file");

  // Max keeps a private note.
  const maxPage = await signIn(max(team));
  await createChat(maxPage, "Mine");
  await send(maxPage, "remember my note");
  await expect(maxPage.getByTestId("turn-status").last()).toContainText("Memory saved: 1 file");

  // ⌘K → the phrase → Enter opens the older chat at that message.
  await page.goto("/files");
  await openSearch(page, '"kestrel migration"');
  const chatHit = page.getByTestId("search-result").and(page.locator('[data-kind="chat"]'));
  await expect(chatHit).toHaveCount(1);
  await expect(chatHit).toContainText("Planning");
  await expect(chatHit.locator("mark")).toHaveText(["kestrel", "migration"]);
  await page.getByTestId("search-input").press("Enter");
  await expect(page).toHaveURL(new RegExp(`/chat/${older}\\?m=`));
  const target = page.locator('[data-search-target="true"]');
  await expect(target).toContainText("plan the kestrel migration");
  await expect(target).toBeInViewport();

  // A member finds the company document by a word in its body, and opens it.
  const miaPage = await signIn(mia(team));
  await openSearch(miaPage, "marmalade");
  const docHit = miaPage.getByTestId("search-result").first();
  await expect(docHit).toHaveAttribute("data-kind", "company");
  await expect(docHit).toContainText("handbook.md");
  await miaPage.keyboard.press("ArrowDown");
  await miaPage.getByTestId("search-input").press("Enter");
  await expect(miaPage).toHaveURL(/\/files\?dir=company&path=handbook\.md/);

  // Another member's notes stay his: nothing found, and the API says the same.
  await openSearch(miaPage, "zeppelin");
  await expect(miaPage.getByTestId("search-empty")).toBeVisible();
  const api = await miaPage.request.get("/api/search?q=zeppelin");
  expect((await api.json()) as unknown).toEqual({ mode: "lexical", hits: [] });
  await openSearch(maxPage, "zeppelin");
  await expect(maxPage.getByTestId("search-result")).toHaveCount(1);

  // The sidebar finds the chat by its message text too.
  await page.goto("/chat");
  await page.getByTestId("chat-search").fill("kestrel");
  await expect(page.getByTestId("chat-row-title")).toHaveText(["Planning"]);
});

test("an admin reads on Admin → Settings how search ranks, and what would turn embeddings on", async ({
  team,
  signIn,
}) => {
  const page = await signIn(ada(team));
  await page.goto("/admin/settings");
  const card = page.getByTestId("search-mode");
  await expect(card.getByRole("heading", { name: "Search" })).toBeVisible();
  // The e2e server has a chat model but no AI_EMBEDDING_MODEL: lexical, with the reason.
  await expect(card.getByTestId("search-mode-value")).toHaveText(
    "Lexical only: AI_EMBEDDING_MODEL is not set.",
  );
  await expect(card).toContainText("Set AI_EMBEDDING_MODEL");
});
