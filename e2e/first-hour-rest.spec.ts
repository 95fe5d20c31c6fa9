/**
 * Issue 26, the rest: the temporary chat, item 8's leftovers (Refine's global box and typed
 * instructions, New entry's default scope, "This chat's notes", the tokens page's MCP setup) and
 * a stopped reply that reloads as it was shown. At 1280 and 390 px where layout matters, with
 * screenshots in light and dark.
 */
import type { Page } from "@playwright/test";
import { expect, test, type Team } from "./support/fixtures";
import { scriptedModel } from "./support/model";
import { createChat } from "./support/pages";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const VIEWPORTS = [
  ["desktop", DESKTOP],
  ["phone", PHONE],
] as const;

test.use({ workspaceName: "Rest Of The Hour Ltd", viewport: DESKTOP });

const admin = (team: Team) => team.person({ name: "Ada", role: "admin" });
const member = (team: Team) => team.person({ name: "Max", role: "member" });

/** Screenshots of the page as it is, light and dark, into data/screens/first-hour/ (kept across runs). */
async function screenshots(page: Page, name: string) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.screenshot({
      path: `data/screens/first-hour/${name}-${scheme}.png`,
      fullPage: true,
    });
  }
  await page.emulateMedia({ colorScheme: "light" });
}

for (const [name, viewport] of VIEWPORTS) {
  test(`a temporary chat (${name}): no memory or harness in its request, says so, and is not listed once left`, async ({
    team,
    signIn,
  }) => {
    const model = scriptedModel();
    await model.setScript([{ reply: { text: `Temporary answer ${name}.` } }]);
    const page = await signIn(member(team), { viewport });
    const toggle = page.getByTestId("temporary-chat-switch");
    await expect(toggle).toHaveAttribute("aria-checked", "false");
    await toggle.click();
    await expect(toggle).toHaveAttribute("aria-checked", "true");
    await expect(page.getByRole("switch", { name: "Temporary chat" })).toBeVisible();
    await screenshots(page, `temporary-switch-${name}`);
    const title = `Secret plan ${name}`;
    await page.getByTestId("start-chat-input").fill(title);
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/chat\/[^/]+$/);
    await expect(page.getByTestId("temporary-chat-notice")).toContainText(
      "does not read or write your memory",
    );
    await expect(page.getByTestId("temporary-chat-badge")).toBeVisible();
    await expect(page.getByTestId("assistant-text")).toContainText(`Temporary answer ${name}.`);
    await expect(page.getByTestId("turn-status")).toContainText("Not remembered");
    // Nothing here writes memory or the harness: no Refine, no Attach, no chat notes link.
    await expect(page.getByTestId("refine")).toHaveCount(0);
    await expect(page.getByTestId("chat-notes-link")).toHaveCount(0);
    await screenshots(page, `temporary-chat-${name}`);

    // The model was asked without memory, harness or search tools, and without their sections.
    const request = (await model.requests()).findLast((entry) =>
      JSON.stringify(entry.messages).includes(title),
    );
    expect(request).toBeDefined();
    expect(request!.tools ?? []).toEqual([]);
    const system = JSON.stringify(request!.messages.filter((message) => message.role === "system"));
    expect(system).toContain("This is a temporary chat");
    expect(system).not.toContain("/persistent");
    expect(system).not.toContain("Harness");

    // Left: it is in no list, also when searched for.
    const chatUrl = page.url();
    await page.goto("/chat");
    await expect(page.getByTestId("start-chat-input")).toBeVisible();
    await expect(page.getByTestId("chat-row").filter({ hasText: title })).toHaveCount(0);
    await page.goto("/harness");
    await expect(page.getByRole("option", { name: new RegExp(title) })).toHaveCount(0);
    // The switch starts off again.
    await page.goto("/chat");
    await expect(page.getByTestId("temporary-chat-switch")).toHaveAttribute(
      "aria-checked",
      "false",
    );
    // Still its owner's until it is deleted: the link works, and says what it is.
    await page.goto(chatUrl);
    await expect(page.getByTestId("temporary-chat-notice")).toBeVisible();
    await page.context().close();
  });
}

test("Refine: the global box is unticked after each refine, and the typed instructions show in the chat", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  await model.setScript([
    {
      whenSystemIncludes: "You refine an agent's continual harness",
      reply: {
        text: JSON.stringify({
          summary: "Note the release day",
          rationale: "Asked for.",
          expectedOutcome: "Answers use it.",
          edits: [],
        }),
      },
    },
    { reply: { text: "Sure." } },
  ]);
  const page = await signIn(admin(team));
  await createChat(page, "Refining");
  const global = page.getByRole("checkbox", { name: "global" });
  await global.check();
  await page.getByTestId("chat-input").fill("remember we release on Mondays");
  await page.getByTestId("refine").click();
  await expect(page.getByTestId("chat-input")).toHaveValue("");
  await expect(global).not.toBeChecked();
  // What was typed stays in the chat: on the waiting line, then on the refinement's card.
  await expect(
    page
      .getByTestId("refine-instructions-pending")
      .or(page.getByTestId("refinement-card-instructions"))
      .first(),
  ).toContainText("remember we release on Mondays");
  await expect(page.getByTestId("refinement-card-instructions")).toContainText(
    "remember we release on Mondays",
    { timeout: 30_000 },
  );
  await page.reload();
  await expect(page.getByTestId("refinement-card-instructions")).toContainText(
    "remember we release on Mondays",
  );
  await expect(page.getByRole("checkbox", { name: "global" })).not.toBeChecked();
  await page.context().close();
});

test("New entry starts global for an editor or admin and local for a member; This chat's notes shows the chat's own entries", async ({
  team,
  signIn,
}) => {
  const page = await signIn(admin(team));
  const chatId = await createChat(page, "Notes here");
  await page.goto("/harness/new");
  await expect(page.getByLabel("Scope")).toHaveValue("global");
  await page.goto(`/chat/${chatId}`);
  await page.getByTestId("chat-notes-link").click();
  await expect(page).toHaveURL(new RegExp(`/harness\\?chat=${chatId}&scope=local$`));
  await expect(page.getByLabel("View")).toHaveValue(chatId);
  await expect(page.getByLabel("Scope", { exact: true })).toHaveValue("local");
  await page.context().close();

  const memberPage = await signIn(member(team));
  await createChat(memberPage, "Member notes");
  await memberPage.goto("/harness/new");
  await expect(memberPage.getByLabel("Scope")).not.toHaveValue("global");
  await expect(memberPage.getByLabel("Scope")).toHaveValue(/^chat:/);
  await memberPage.context().close();
});

for (const [name, viewport] of VIEWPORTS) {
  test(`the tokens page (${name}) shows the full MCP URL and a client configuration to copy`, async ({
    team,
    signIn,
  }) => {
    const page = await signIn(admin(team), { viewport });
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.goto("/settings/tokens");
    const origin = new URL(page.url()).origin;
    await expect(page.getByTestId("mcp-url")).toHaveValue(`${origin}/api/mcp`);
    const config = JSON.parse((await page.getByTestId("mcp-config").textContent()) ?? "{}") as {
      mcpServers: { cairn: { url: string; headers: Record<string, string> } };
    };
    expect(config.mcpServers.cairn.url).toBe(`${origin}/api/mcp`);
    expect(config.mcpServers.cairn.headers.Authorization).toMatch(/^Bearer cairn_pat_/);
    await page.getByTestId("mcp-config-copy").click();
    await expect(page.getByTestId("mcp-config-copy")).toHaveText("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(
      `"url": "${origin}/api/mcp"`,
    );
    // A new token comes with the configuration filled in.
    await page.getByTestId("token-name").fill(`laptop ${name}`);
    await page.getByTestId("create-token").click();
    const token = await page.getByTestId("new-token-value").inputValue();
    await expect(page.getByTestId("new-token").getByTestId("mcp-config")).toContainText(
      `Bearer ${token}`,
    );
    await screenshots(page, `tokens-${name}`);
    // Nothing overflows the phone's width.
    const wide = await page.evaluate(() =>
      [...document.querySelectorAll("body *")]
        .filter(
          (node) => node.getBoundingClientRect().right > document.documentElement.clientWidth + 1,
        )
        .slice(0, 5)
        .map(
          (node) => `${node.tagName}.${node.className} ${node.getAttribute("data-testid") ?? ""}`,
        ),
    );
    expect(wide).toEqual([]);
    await page.context().close();
  });
}

test("Stop: the cut reply is labelled Stopped, and after a reload it holds exactly the text that was shown", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  await model.setScript([
    {
      reply: {
        text: Array.from({ length: 40 }, (_, index) => `w${index}`).join(" "),
        delayMs: 150,
      },
    },
  ]);
  const page = await signIn(admin(team));
  await createChat(page, "Stop exactly");
  await page.getByTestId("chat-input").fill("Count slowly");
  await page.getByTestId("send").click();
  await expect(page.getByTestId("assistant-text")).toContainText("w3");
  await page.getByTestId("stop").click();
  await expect(page.locator('[data-stopped="true"]')).toContainText("Stopped");
  const shown = (await page.getByTestId("assistant-text").textContent())!.trim();
  // The server's turn runs on for a moment; what is kept must not.
  await page.waitForTimeout(2_000);
  await expect(page.getByTestId("assistant-text")).toHaveText(shown);
  await page.reload();
  await expect(page.getByTestId("assistant-text")).toHaveText(shown);
  await expect(page.locator('[data-stopped="true"]')).toContainText("Stopped");
  await screenshots(page, "stopped");
  await page.context().close();
});
