/**
 * Issue 26, items 3–8: the rough edges of a team's first hour, each checked in the browser at
 * 1280 and 390 px, and axe-core on every page in both themes.
 */
import type { Browser, BrowserContextOptions, Page } from "@playwright/test";
import { seriousViolations } from "./support/axe";
import { expect, test, type Team } from "./support/fixtures";
import { scriptedModel } from "./support/model";
import { AuthPages, callServerAction, createChat } from "./support/pages";

const admin = (team: Team) => team.person({ name: "Ada", role: "admin" });
const member = (team: Team) => team.person({ name: "Max", role: "member" });

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const VIEWPORTS = [
  ["desktop", DESKTOP],
  ["phone", PHONE],
] as const;

test.use({ workspaceName: "First Hour Ltd", viewport: DESKTOP });

async function newPage(browser: Browser, options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext({ viewport: DESKTOP, ...options });
  return context.newPage();
}

for (const [name, viewport] of VIEWPORTS) {
  test(`keyboard (${name}): the message box has the focus, a skip link leads to the page, and a new chat keeps the focus in its box`, async ({
    team,
    signIn,
  }) => {
    const model = scriptedModel();
    await model.setScript([{ reply: { text: "Hello from the keyboard test." } }]);
    const page = await signIn(admin(team), { viewport });
    // A few chats in the sidebar: the box must not drift further down the Tab order.
    for (const title of ["One", "Two", "Three"]) {
      await callServerAction(page.context().request, {
        pagePath: "/chat",
        file: "app/(app)/chat/actions.ts",
        name: "createChatAction",
        args: [{ title: `${title} ${name}` }],
      });
    }
    await page.goto("/chat");
    await expect(page.getByTestId("start-chat-input")).toBeFocused();
    // From the top of a page, the first Tab stop is the skip link, which leads to the page.
    await page.goto("/memory");
    await page.keyboard.press("Tab");
    await expect(page.getByTestId("skip-link")).toBeFocused();
    await expect(page.getByTestId("skip-link")).toBeVisible();
    await page.keyboard.press("Enter");
    await expect(page.locator("main#main")).toBeFocused();
    await page.goto("/chat");
    await expect(page.getByTestId("start-chat-input")).toBeFocused();

    await page.getByTestId("start-chat-input").fill(`Keyboard ${name}`);
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/chat\/[^/]+$/);
    await expect(page.getByTestId("assistant-text")).toContainText("Hello from the keyboard test.");
    await expect(page.getByTestId("chat-input")).toBeFocused();
    // The reply was announced to screen readers.
    await expect(page.getByTestId("reply-announcer")).toHaveText(
      "Cairn replied: Hello from the keyboard test.",
    );
    await page.context().close();
  });
}

test("sign-in keeps the email after a wrong password and returns to the page asked for", async ({
  browser,
  team,
}) => {
  const adminPerson = admin(team);
  for (const viewport of [DESKTOP, PHONE]) {
    const page = await newPage(browser, { viewport });
    await page.goto("/memory");
    await expect(page).toHaveURL(/\/sign-in\?callbackUrl=%2Fmemory$/);
    await expect(page.getByRole("heading", { level: 1, name: "Sign in" })).toBeVisible();
    await page.getByLabel("Email", { exact: true }).fill(adminPerson.email);
    await page.getByLabel("Password", { exact: true }).fill("not-the-password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByTestId("form-error")).toBeVisible();
    await expect(page.getByLabel("Email", { exact: true })).toHaveValue(adminPerson.email);
    await page.getByLabel("Password", { exact: true }).fill(adminPerson.password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page).toHaveURL(/\/memory$/);
    await expect(page).toHaveTitle("Memory · Cairn");
    await page.context().close();
  }
  // Another site is never a place to return to.
  const page = await newPage(browser);
  await page.goto("/sign-in?callbackUrl=%2F%2Fevil.example%2F");
  await new AuthPages(page).signIn(adminPerson);
  await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/chat$/);
  await page.context().close();
});

test("an invite made for an email starts the sign-up form with it", async ({
  browser,
  team,
  signIn,
}) => {
  const page = await signIn(admin(team));
  await page.goto("/admin/members");
  await page.getByTestId("invite-note").fill("newcomer.firsthour@example.com");
  await page
    .getByRole("button", { name: /invite link/i })
    .first()
    .click();
  const link = await page.getByTestId("invite-link").first().inputValue();
  expect(link).toContain("/sign-up?invite=");
  const visitor = await newPage(browser, { viewport: PHONE });
  await visitor.goto(link!.trim());
  await expect(visitor.getByLabel("Email", { exact: true })).toHaveValue(
    "newcomer.firsthour@example.com",
  );
  await expect(visitor.getByRole("heading", { level: 1 })).toContainText("Join");
  await visitor.context().close();
  await page.context().close();
});

test("copy works over plain http (no navigator.clipboard), for messages and invite links", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  await model.setScript([{ reply: { text: "Copy me over http." } }]);
  const page = await signIn(admin(team));
  // What a LAN address over http looks like to the page: not a secure context, no clipboard API.
  await page.addInitScript(() => {
    Object.defineProperty(window, "isSecureContext", { value: false });
    Object.defineProperty(Navigator.prototype, "clipboard", { get: () => undefined });
    const copied: string[] = [];
    (window as unknown as { __copied: string[] }).__copied = copied;
    document.addEventListener("copy", () => {
      const active = document.activeElement;
      copied.push(
        active instanceof HTMLTextAreaElement
          ? active.value.slice(active.selectionStart, active.selectionEnd)
          : String(document.getSelection() ?? ""),
      );
    });
  });
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await createChat(page, "Copy over http");
  await page.getByTestId("chat-input").fill("Say something to copy");
  await page.getByTestId("send").click();
  await expect(page.getByTestId("assistant-text")).toContainText("Copy me over http.");
  await page.getByTestId("message-assistant").getByTestId("message-copy").click();
  await expect(page.getByTestId("message-assistant").getByTestId("message-copy")).toHaveAttribute(
    "aria-label",
    "Copied",
  );
  expect(
    await page.evaluate(() => (window as unknown as { __copied: string[] }).__copied),
  ).toContain("Copy me over http.");
  expect(errors).toEqual([]);
  await page.context().close();
});

test("a failed reply reads the same with Retry before and after a reload; Retry answers it", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  await model.setScript([
    {
      whenLastUserIncludes: "fail please",
      reply: { error: { status: 500, body: { error: { message: "Try again in a moment." } } } },
    },
    { reply: { text: "Now it worked." } },
  ]);
  const page = await signIn(member(team), { viewport: PHONE });
  await createChat(page, "Failing reply");
  await page.getByTestId("chat-input").fill("fail please");
  await page.getByTestId("send").click();
  const failure = page
    .getByTestId("chat-error")
    .or(page.getByTestId("turn-status").filter({ hasText: "failed" }));
  await expect(failure.first()).toContainText("The reply failed");
  await expect(page.getByTestId("retry")).toHaveCount(1);
  await expect(page.getByTestId("message-regenerate")).toHaveCount(0);
  await expect(page.locator("body")).not.toContainText("..");
  await page.reload();
  await expect(page.getByText(/The reply failed/).first()).toBeVisible();
  await expect(page.locator("body")).not.toContainText("..");
  await expect(page.getByTestId("retry")).toHaveCount(1);
  await model.setScript([{ reply: { text: "Now it worked." } }]);
  await page.getByTestId("retry").click();
  await expect(page.getByTestId("assistant-text").last()).toContainText("Now it worked.");
  await page.context().close();
});

test("Stop labels the cut reply Stopped, as the stored turn does after a reload", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  await model.setScript([
    {
      reply: {
        text: "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty",
        delayMs: 400,
      },
    },
  ]);
  const page = await signIn(admin(team));
  await createChat(page, "Stopping");
  await page.getByTestId("chat-input").fill("Count slowly");
  await page.getByTestId("send").click();
  await expect(page.getByTestId("assistant-text")).toContainText("two");
  await page.getByTestId("stop").click();
  await expect(page.locator('[data-stopped="true"]')).toHaveText(
    "Stopped. No memory changes were saved.",
  );
  await page.reload();
  await expect(page.locator('[data-stopped="true"]')).toHaveText(
    "Stopped. No memory changes were saved.",
  );
  await page.context().close();
});

test("a message sent right after the answer ends is never refused as busy", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  await model.setScript([{ reply: { text: "Quick answer." } }]);
  const page = await signIn(admin(team));
  const chatId = await createChat(page, "Back to back");
  const request = page.context().request;
  for (let index = 0; index < 12; index += 1) {
    const response = await request.post("/api/chat", {
      headers: { origin: new URL(page.url()).origin },
      data: {
        chatId,
        message: {
          id: `b2b-${index}`,
          role: "user",
          parts: [{ type: "text", text: `n ${index}` }],
        },
      },
    });
    expect(response.status(), await response.text()).toBe(200);
  }
  await page.context().close();
});

test("tabs are titled per page; Escape closes the phone menu; phone tap targets are 44 px", async ({
  team,
  signIn,
}) => {
  const page = await signIn(admin(team), { viewport: PHONE });
  for (const [path, title] of [
    ["/chat", "New chat · Cairn"],
    ["/memory", "Memory · Cairn"],
    ["/harness", "Harness · Cairn"],
    ["/refinements", "Refinements · Cairn"],
    ["/files", "Files · Cairn"],
    ["/admin/members", "Members · Cairn"],
    ["/settings/tokens", "Access tokens · Cairn"],
  ] as const) {
    await page.goto(path);
    await expect(page).toHaveTitle(title);
  }
  await page.getByTestId("menu-button").click();
  await expect(page.getByTestId("app-menu")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("app-menu")).toBeHidden();
  await expect(page.getByTestId("menu-button")).toBeFocused();

  const model = scriptedModel();
  await model.setScript([{ reply: { text: "Tap targets." } }]);
  await createChat(page, "Tap targets");
  await expect(page).toHaveTitle("Tap targets · Cairn");
  await page.getByTestId("chat-input").fill("Hi");
  await page.getByTestId("send").click();
  await expect(page.getByTestId("assistant-text")).toContainText("Tap targets.");
  const targets = [
    page.getByTestId("message-assistant").getByTestId("message-copy"),
    page.getByTestId("message-regenerate"),
    page.getByTestId("trace-link"),
    page.getByTestId("menu-button"),
  ];
  for (const target of targets) {
    const box = await target.boundingBox();
    expect(box, await target.evaluate((node) => node.outerHTML.slice(0, 120))).not.toBeNull();
    expect(box!.height).toBeGreaterThanOrEqual(44);
    expect(box!.width).toBeGreaterThanOrEqual(44);
  }
  await page.context().close();
});

test("axe-core: no serious or critical violation on any page, light and dark, 1280 and 390 px", async ({
  browser,
  team,
  signIn,
}) => {
  test.setTimeout(600_000);
  const model = scriptedModel();
  await model.setScript([
    {
      whenSystemIncludes: "You refine an agent's continual harness",
      reply: {
        text: JSON.stringify({
          summary: "Keep the code style",
          rationale: "Asked for.",
          expectedOutcome: "Answers follow it.",
          edits: [
            {
              action: "create",
              kind: "prompt",
              title: "Code style",
              content: "Prefer const.",
              reason: "Asked for",
            },
          ],
        }),
      },
    },
    { reply: { text: "A reply with `code` and\n\n```\nconst a = 1;\n```" } },
  ]);
  const setup = await signIn(admin(team), { bypassCSP: true });
  const chatId = await createChat(setup, "Accessible chat");
  await setup.getByTestId("chat-input").fill("Show code");
  await setup.getByTestId("send").click();
  await expect(setup.getByTestId("assistant-text")).toContainText("const a = 1;");
  const turnHref = await setup.getByTestId("trace-link").getAttribute("href");
  // A refinement (its detail page) and the harness entry it writes (the entry page).
  await setup.getByTestId("chat-input").fill("/refine keep the code style");
  await setup.getByTestId("send").click();
  await expect(setup.getByTestId("refinement-counts").first()).toContainText("created 1", {
    timeout: 30_000,
  });
  const refinementHref = await setup
    .getByTestId("refinement-card")
    .first()
    .getByRole("link", { name: "details" })
    .getAttribute("href");
  await setup.goto(`/harness?chat=${chatId}&scope=local`);
  const entryHref = await setup
    .getByTestId("entry-row")
    .first()
    .locator("a")
    .first()
    .getAttribute("href");
  // An invite, for the sign-up page.
  await setup.goto("/admin/members");
  await setup.getByTestId("create-invite").click();
  const inviteLink = await setup.getByTestId("invite-link").first().inputValue();
  // A temporary chat, which reads differently.
  const temporary = await callServerAction(setup.context().request, {
    pagePath: "/chat",
    file: "app/(app)/chat/actions.ts",
    name: "createChatAction",
    args: [{ title: "Accessible temporary chat", temporary: true }],
  });
  const temporaryId = /"chatId":"([^"]+)"/.exec(await temporary.text())?.[1];
  expect(temporaryId).toBeDefined();
  await setup.context().close();
  expect(turnHref && refinementHref && entryHref).toBeTruthy();
  const pages = [
    "/chat",
    `/chat/${chatId}`,
    `/chat/${temporaryId}`,
    turnHref!,
    "/memory",
    "/files",
    "/files/failures",
    "/harness",
    `/harness?chat=${chatId}&scope=local`,
    entryHref!,
    "/harness/new",
    "/refinements",
    refinementHref!,
    "/refinements/outcomes",
    "/settings/tokens",
    "/settings/data",
    "/admin/members",
    "/admin/settings",
  ];
  const signedOutPages = [
    "/sign-in",
    new URL(inviteLink.trim()).pathname + new URL(inviteLink.trim()).search,
  ];
  const findings: string[] = [];
  for (const colorScheme of ["light", "dark"] as const) {
    for (const viewport of [DESKTOP, PHONE]) {
      const signedOut = await newPage(browser, { viewport, colorScheme, bypassCSP: true });
      for (const path of signedOutPages) {
        await signedOut.goto(path);
        await signedOut.waitForLoadState("networkidle");
        for (const finding of await seriousViolations(signedOut))
          findings.push(`${path} ${colorScheme} ${viewport.width}: ${JSON.stringify(finding)}`);
      }
      await signedOut.context().close();
      const page = await signIn(admin(team), { viewport, colorScheme, bypassCSP: true });
      for (const path of pages) {
        await page.goto(path);
        await page.waitForLoadState("networkidle");
        for (const finding of await seriousViolations(page))
          findings.push(`${path} ${colorScheme} ${viewport.width}: ${JSON.stringify(finding)}`);
      }
      await page.context().close();
    }
  }
  expect(findings, findings.join("\n")).toEqual([]);
});
