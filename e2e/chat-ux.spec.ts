import { mkdirSync } from "node:fs";
import type { Page } from "@playwright/test";
import { expect, test, type Team } from "./support/fixtures";
import { scriptedModel } from "./support/model";
import { createChat, send } from "./support/pages";

const member = (team: Team) => team.person({ name: "Uma", role: "member" });
const admin = (team: Team) => team.person({ name: "Ada", role: "admin" });

test.use({ workspaceName: "Everyday Co" });

/** A distinctive phrase of PLANNING_SYSTEM_PROMPT (lib/harness/refine/prompts.ts). */
const PLANNER = "You refine an agent's continual harness";

const teaPlan = {
  summary: "Remember the tea preference",
  rationale: "The user asked to remember it.",
  expectedOutcome: "Answers offer tea, not coffee.",
  edits: [
    {
      action: "create",
      kind: "memory",
      title: "Drinks",
      content: "Uma likes tea.",
      reason: "Stated by the user",
    },
  ],
};

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/** Pixels between the end of the conversation and the top of the input bar (≤ 0: in view). */
function distanceToLatest(page: Page): Promise<number> {
  return page.evaluate(() => {
    const end = document.querySelector('[data-testid="timeline-end"]')!.getBoundingClientRect();
    const bar = document.querySelector('[data-testid="chat-input"]')!.closest("form")!;
    return end.top - (window.innerHeight - bar.getBoundingClientRect().height);
  });
}

/** The timeline's rows in order, by kind. */
async function timelineKinds(page: Page): Promise<string[]> {
  return page
    .locator(
      '[data-testid="messages"] > [data-testid^="message-"], [data-testid="messages"] > [data-testid="refinement-card"]',
    )
    .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-testid") ?? ""));
}

test("a chat starts by typing, is titled from the first message, and the sidebar finds, renames and deletes chats", async ({
  team,
  signIn,
}) => {
  await scriptedModel().reset();
  const page = await signIn(member(team), { viewport: DESKTOP, clipboard: true });
  await expect(page.getByText("The conversation view arrives")).toHaveCount(0);

  for (const text of ["Plan the spring offsite", "Budget for the garden"]) {
    await page.goto("/chat");
    await page.getByTestId("start-chat-input").fill(text);
    await page.getByTestId("start-chat").click();
    await expect(page.getByTestId("chat-title")).toHaveText(text);
    await expect(page.getByTestId("assistant-text").last()).toContainText(`You said: ${text}`);
  }
  // Newest first.
  const titles = page.getByTestId("chat-row-title");
  await expect(titles).toHaveText(["Budget for the garden", "Plan the spring offsite"]);

  await page.getByTestId("chat-search").fill("offsite");
  await expect(titles).toHaveText(["Plan the spring offsite"]);
  await page.getByTestId("chat-search").fill("nothing like this");
  await expect(page.getByTestId("chat-search-empty")).toBeVisible();
  await page.getByTestId("chat-search").fill("");

  const garden = page.getByTestId("chat-row").filter({ hasText: "Budget for the garden" });
  await garden.getByTestId("chat-rename").click();
  await page.getByTestId("chat-rename-input").fill("Garden budget 2027");
  await page.getByTestId("chat-rename-save").click();
  await expect(titles.first()).toHaveText("Garden budget 2027");
  await expect(page.getByTestId("chat-title")).toHaveText("Garden budget 2027");
  const gardenUrl = page.url();

  const renamed = page.getByTestId("chat-row").filter({ hasText: "Garden budget 2027" });
  await renamed.getByTestId("chat-delete").click();
  await expect(page.getByTestId("chat-delete-confirm")).toContainText(
    "Delete “Garden budget 2027”?",
  );
  await page.getByTestId("chat-delete-confirm-button").click();
  await expect(page).toHaveURL(/\/chat$/);
  await expect(titles).toHaveText(["Plan the spring offsite"]);
  const response = await page.goto(gardenUrl);
  expect(response?.status()).toBe(404);
});

test("the chat follows a long streamed reply, offers 'jump to latest' when scrolled up, and reopens at the latest message", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  await model.reset();
  const story = Array.from(
    { length: 90 },
    (_, index) => `Paragraph ${index + 1} of the long story goes on for a while.`,
  ).join("\n\n");
  await model.setScript([
    { whenLastUserIncludes: "long story", reply: { text: story, delayMs: 12 } },
  ]);
  const page = await signIn(member(team), { viewport: DESKTOP, clipboard: true });
  await createChat(page, "Stories");
  await send(page, "Tell me a long story");

  // While it streams, the newest text stays in view.
  await expect(page.getByTestId("assistant-text").last()).toContainText("Paragraph 30");
  await expect(page.getByTestId("stop")).toBeVisible();
  await expect.poll(() => distanceToLatest(page)).toBeLessThanOrEqual(100);
  expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);

  // Scrolled up, it stops following and offers a way back.
  await page.mouse.move(640, 300);
  await page.mouse.wheel(0, -1500);
  await expect(page.getByTestId("jump-to-latest")).toBeVisible();
  await expect(page.getByTestId("send")).toBeVisible({ timeout: 30_000 });
  expect(await distanceToLatest(page)).toBeGreaterThan(100);
  await page.getByTestId("jump-to-latest").click();
  await expect.poll(() => distanceToLatest(page)).toBeLessThanOrEqual(100);
  await expect(page.getByTestId("jump-to-latest")).toHaveCount(0);

  // A reloaded chat opens at the latest message.
  await page.reload();
  await expect(page.getByTestId("assistant-text").last()).toContainText("Paragraph 90");
  await expect.poll(() => distanceToLatest(page)).toBeLessThanOrEqual(100);
  expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
});

test("Refine uses the typed text as instructions, and refinement cards sit in the timeline where they happened; a rolled-back one says so", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  await model.reset();
  await model.setScript([
    { whenSystemIncludes: PLANNER, reply: { text: JSON.stringify(teaPlan) } },
  ]);
  const page = await signIn(member(team), { viewport: DESKTOP, clipboard: true });
  await createChat(page, "Drinks");
  await send(page, "What should I drink this afternoon?");
  await expect(page.getByTestId("assistant-text").last()).toContainText("You said: What should");

  await page.getByTestId("chat-input").fill("remember that I like tea");
  await expect(page.getByTestId("refine")).toHaveText("Refine with this");
  await page.getByTestId("refine").click();
  await expect(page.getByTestId("chat-input")).toHaveValue("");
  const card = page.getByTestId("refinement-card");
  await expect(card).toHaveCount(1, { timeout: 30_000 });
  await expect(card).toContainText("Remember the tea preference");
  const planning = (await model.requests()).find((request) =>
    JSON.stringify(request.messages).includes(PLANNER),
  );
  expect(JSON.stringify(planning?.messages)).toContain("remember that I like tea");
  expect(JSON.stringify(planning?.messages)).not.toContain("(none: decide from the evidence");

  await send(page, "And tomorrow morning?");
  await expect(page.getByTestId("assistant-text").last()).toContainText("You said: And tomorrow");
  const expected = [
    "message-user",
    "message-assistant",
    "refinement-card",
    "message-user",
    "message-assistant",
  ];
  expect(await timelineKinds(page)).toEqual(expected);
  await page.reload();
  await expect(page.getByTestId("refinement-card")).toHaveCount(1);
  expect(await timelineKinds(page)).toEqual(expected);

  // Roll it back from its page: it then reads "Rolled back" everywhere, and cannot be rolled back again.
  await page.getByTestId("refinement-card").getByRole("link", { name: "details" }).click();
  await page.getByTestId("rollback").click();
  await expect(page.getByTestId("rollback-done")).toBeVisible();
  await page.reload();
  const status = page.getByTestId("refinement-status");
  await expect(status).toHaveAttribute("data-status", "rolled_back");
  await expect(status).toHaveText("Rolled back");
  await expect(page.getByTestId("rollback")).toBeDisabled();
  await expect(page.getByTestId("already-rolled-back")).toBeVisible();
  await page.getByTestId("rolled-back-link").click();
  await expect(page.getByTestId("refinement-trigger")).toHaveText("Rollback");

  await page.goto("/refinements?trigger=explicit");
  const row = page.getByTestId("refinement-row").first();
  await expect(row.getByTestId("refinement-status")).toHaveAttribute("data-status", "rolled_back");
  await page.goto("/chat");
  await page.getByTestId("chat-row").filter({ hasText: "Drinks" }).getByTestId("chat-link").click();
  // The original card says "Rolled back"; the rollback has a card of its own, after it.
  const cards = page.getByTestId("refinement-card");
  await expect(cards).toHaveCount(2);
  await expect(cards.first().getByTestId("refinement-status")).toHaveAttribute(
    "data-status",
    "rolled_back",
  );
  await expect(cards.last()).toContainText("Rollback: Remember the tea preference");
});

test("message actions: copy, edit and resend, regenerate, and retry after a provider error", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  await model.reset();
  await model.setScript([
    { whenLastUserIncludes: "pick a colour", times: 1, reply: { text: "Blue, clearly." } },
    { whenLastUserIncludes: "pick a colour", reply: { text: "Green, on second thought." } },
    {
      whenLastUserIncludes: "flaky question",
      times: 1,
      reply: {
        error: {
          status: 401,
          body: { error: { message: "bad key", type: "invalid_request_error" } },
        },
      },
    },
    { whenLastUserIncludes: "flaky question", reply: { text: "Recovered answer." } },
  ]);
  const page = await signIn(member(team), { viewport: DESKTOP, clipboard: true });
  await createChat(page, "Actions");
  await send(page, "Please pick a colour");
  const answers = page.getByTestId("assistant-text");
  await expect(answers.last()).toHaveText("Blue, clearly.");

  // Copy.
  await page.getByTestId("message-assistant").last().getByTestId("message-copy").click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("Blue, clearly.");

  // Regenerate: the answer is replaced, not added.
  await page.getByTestId("message-regenerate").click();
  await expect(answers.last()).toHaveText("Green, on second thought.");
  await expect(page.getByTestId("message-assistant")).toHaveCount(1);
  await page.reload();
  await expect(page.getByTestId("message-assistant")).toHaveCount(1);
  await expect(answers.last()).toHaveText("Green, on second thought.");

  // Edit and resend: the message and everything after it are replaced.
  await page.getByTestId("message-user").first().getByTestId("message-edit").click();
  await page.getByTestId("message-edit-input").fill("Please name a fruit");
  await page.getByTestId("message-edit-send").click();
  await expect(answers.last()).toHaveText("You said: Please name a fruit");
  await expect(page.getByTestId("message-user")).toHaveCount(1);
  await page.reload();
  await expect(page.getByTestId("message-user")).toHaveText(["Please name a fruit"]);
  await expect(page.getByTestId("message-assistant")).toHaveCount(1);

  // Retry after a provider error, in plain words for a member.
  await send(page, "A flaky question");
  await expect(page.getByTestId("chat-error")).toContainText("rejected the API key");
  await expect(page.getByTestId("chat-error")).not.toContainText("AI_");
  await page.getByTestId("chat-error").getByTestId("retry").click();
  await expect(answers.last()).toHaveText("Recovered answer.");
  await expect(page.getByTestId("chat-error")).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId("message-user")).toHaveCount(2);
  await expect(page.getByTestId("message-assistant")).toHaveCount(2);
});

test("at phone width no page scrolls sideways, the menu button opens the navigation, and tables become cards; screenshots of every page", async ({
  browser,
  team,
  signIn,
}) => {
  test.setTimeout(400_000);
  const model = scriptedModel();
  await model.reset();
  await model.setScript([
    {
      whenSystemIncludes: PLANNER,
      reply: { text: JSON.stringify({ ...teaPlan, summary: "Remember the team drink" }) },
    },
  ]);
  // Data for every page: a chat with a turn, a global refinement and its entry.
  const setup = await signIn(admin(team), { viewport: DESKTOP, clipboard: true });
  const chatId = await createChat(setup, "Team drinks with a rather long title for a phone");
  await send(setup, "What does the team like to drink at the Friday meeting?");
  await expect(setup.getByTestId("assistant-text").last()).toContainText("You said:");
  const turnHref = await setup.getByTestId("trace-link").last().getAttribute("href");
  await send(setup, "/refine --global the team likes tea");
  // The refinement runs as a background job: wait until it has applied before reading its entry.
  await expect(setup.getByTestId("refinement-card")).toHaveAttribute("data-status", "applied", {
    timeout: 30_000,
  });
  await setup.goto("/harness?q=tea");
  await expect(setup.getByTestId("entry-row")).toHaveCount(1);
  const entryHref = await setup
    .getByTestId("entry-row")
    .first()
    .getByRole("link")
    .getAttribute("href");
  await setup.goto("/refinements");
  const refinementHref = await setup.getByTestId("refinement-link").first().getAttribute("href");
  await setup.context().close();

  const pages = [
    "/chat",
    `/chat/${chatId}`,
    turnHref!,
    "/harness",
    `/harness?chat=${chatId}`,
    "/harness/new",
    entryHref!,
    "/refinements",
    refinementHref!,
    "/memory",
    "/files",
    "/files/failures",
    "/admin/members",
    "/admin/settings",
  ];
  const shots = "test-results/screenshots";
  mkdirSync(shots, { recursive: true });
  const name = (path: string) =>
    path.replace(/[?=]/g, "-").replace(/\//g, "_").replace(/^_/, "") || "root";

  for (const scheme of ["light", "dark"] as const) {
    const phone = await signIn(admin(team), { viewport: PHONE, clipboard: true });
    await phone.emulateMedia({ colorScheme: scheme });
    for (const path of pages) {
      await phone.goto(path);
      await phone.waitForLoadState("networkidle");
      const [scrollWidth, innerWidth] = await phone.evaluate(() => [
        document.documentElement.scrollWidth,
        window.innerWidth,
      ]);
      await phone.screenshot({ path: `${shots}/phone-${scheme}-${name(path)}.png` });
      // Soft: one run reports every page that scrolls sideways, with its screenshot.
      expect
        .soft(scrollWidth, `${path} scrolls sideways at 390 px`)
        .toBeLessThanOrEqual(innerWidth);
    }
    if (scheme === "light") {
      // The header's controls live behind the menu button.
      await phone.goto("/refinements");
      await expect(phone.getByTestId("sign-out")).toBeHidden();
      await phone.getByTestId("menu-button").click();
      await expect(phone.getByTestId("sign-out")).toBeVisible();
      await expect(phone.getByTestId("nav-admin")).toBeVisible();
      await phone.screenshot({ path: `${shots}/phone-light-menu-open.png` });
      await phone.getByTestId("nav-harness").click();
      await expect(phone).toHaveURL(/\/harness$/);
      await expect(phone.getByTestId("sign-out")).toBeHidden();
      // A table row is a card: as wide as the screen, its header row hidden.
      await phone.goto("/refinements");
      const row = phone.getByTestId("refinement-row").first();
      const box = (await row.boundingBox())!;
      expect(box.width).toBeLessThanOrEqual(PHONE.width);
      expect(await row.evaluate((node) => getComputedStyle(node).display)).toBe("block");
    }
    await phone.context().close();

    const desktop = await signIn(admin(team), { viewport: DESKTOP, clipboard: true });
    await desktop.emulateMedia({ colorScheme: scheme });
    for (const path of pages) {
      await desktop.goto(path);
      await desktop.waitForLoadState("networkidle");
      await desktop.screenshot({ path: `${shots}/desktop-${scheme}-${name(path)}.png` });
    }
    await desktop.context().close();
  }

  // Signed out: the sign-in page too.
  const context = await browser.newContext({ viewport: PHONE });
  const signInPage = await context.newPage();
  await signInPage.goto("/sign-in");
  const [scrollWidth, innerWidth] = await signInPage.evaluate(() => [
    document.documentElement.scrollWidth,
    window.innerWidth,
  ]);
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
  await signInPage.screenshot({ path: `${shots}/phone-light-sign-in.png` });
  await context.close();
});
