import type { Page } from "@playwright/test";
import { expect, test as base, type Team } from "./support/fixtures";
import { AuthPages, createChat } from "./support/pages";

// Issue 14: the findings that were found through the browser or over HTTP, each checked the
// same way. Own people in their own workspace.
const editor = (team: Team) => team.person({ name: "Hale Editor", role: "editor" });
const member = (team: Team) => team.person({ name: "Hugo Member", role: "member" });

/**
 * `cspViolations`: console messages about blocked resources from every page the test opens
 * through `watchCsp`; `editorPage` and `memberPage`: the workspace's editor and member, signed
 * in and watched.
 */
const test = base.extend<{
  cspViolations: string[];
  watchCsp: (page: Page) => void;
  editorPage: Page;
  memberPage: Page;
}>({
  cspViolations: async ({}, provide) => {
    await provide([]);
  },
  watchCsp: async ({ cspViolations }, provide) => {
    await provide((page) =>
      page.on("console", (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) {
          cspViolations.push(`${page.url()}: ${message.text()}`);
        }
      }),
    );
  },
  editorPage: async ({ team, signIn, watchCsp }, provide) => {
    await provide(await signIn(editor(team), { onPage: watchCsp }));
  },
  memberPage: async ({ team, signIn, watchCsp }, provide) => {
    await provide(await signIn(member(team), { onPage: watchCsp }));
  },
});

test.use({ workspaceName: "Hardening Co" });

function newChat(page: Page, title: string): Promise<string> {
  return createChat(page, title);
}

// Finding 8.
test("every response carries the security headers", async ({ request }) => {
  // Pages and Auth.js's routes: the page policy, from proxy.ts. The other API routes: a policy
  // that allows nothing, from next.config.ts (decision 0026).
  for (const path of ["/sign-in", "/api/auth/csrf", "/api/health"]) {
    const response = await request.get(path);
    const headers = response.headers();
    const csp = headers["content-security-policy"] ?? "";
    expect(csp, path).toContain("frame-ancestors 'none'");
    if (path === "/api/health") expect(csp, path).toContain("default-src 'none'");
    else {
      expect(csp, path).toContain("img-src 'self' data: blob:");
      expect(csp, path).toContain("connect-src 'self'");
    }
    expect(headers["x-frame-options"], path).toBe("DENY");
    expect(headers["x-content-type-options"], path).toBe("nosniff");
    expect(headers["referrer-policy"], path).toBe("same-origin");
  }
});

// Finding 8: the policy must not break the app itself (Next's inline scripts, styles).
test("the app's pages work under the policy, with no violations reported", async ({
  editorPage,
  cspViolations,
}) => {
  for (const path of ["/chat", "/harness", "/files", "/refinements"]) {
    const response = await editorPage.goto(path);
    expect(response?.status(), path).toBeLessThan(400);
  }
  // Hydrated: a client-side navigation and a client-rendered control both work.
  await editorPage.goto("/files?dir=user");
  await editorPage.getByTestId("new-file-path").fill("csp-check.md");
  await editorPage.getByTestId("file-content-input").fill("hydrated\n");
  await expect(editorPage.getByTestId("save-file")).toBeEnabled();
  await editorPage.getByTestId("save-file").click();
  await expect(editorPage).toHaveURL(/path=csp-check\.md/);
  expect(cspViolations).toEqual([]);
});

// Finding 9.
test("/api/chat refuses another origin and a body that is not JSON", async ({ editorPage }) => {
  const chatId = await newChat(editorPage, "Origin check");
  const message = { id: "origin-check-1", role: "user", parts: [{ type: "text", text: "hi" }] };
  const foreign = await editorPage.request.post("/api/chat", {
    headers: { Origin: "http://evil.example", "Content-Type": "application/json" },
    data: JSON.stringify({ chatId, message }),
  });
  expect(foreign.status()).toBe(403);
  const plain = await editorPage.request.post("/api/chat", {
    headers: { "Content-Type": "text/plain" },
    data: JSON.stringify({ chatId, message }),
  });
  expect(plain.status()).toBe(415);
  // Nothing was stored: the chat has no messages.
  await editorPage.reload();
  await expect(editorPage.getByTestId("message-user")).toHaveCount(0);
});

// Finding 13.
test("bad query strings on /harness answer with a message or are ignored, never 500", async ({
  editorPage,
}) => {
  const cases: [string, "bad-query" | "page"][] = [
    ["/harness?chat=a&chat=b", "page"],
    [`/harness?path=${"p".repeat(300)}`, "bad-query"],
    ["/harness?cursor=%7Bgarbage", "page"],
    ["/harness?kind=memory&kind=skill&q=x&q=y", "page"],
    ["/refinements?cursor=nope&status=a&status=b", "page"],
    ["/files?dir=user&dir=company&path=a&path=b&history=zz", "page"],
  ];
  for (const [path, expected] of cases) {
    const response = await editorPage.goto(path);
    expect(response?.status(), path).toBeLessThan(500);
    if (expected === "bad-query") {
      await expect(editorPage.getByTestId("bad-query"), path).toContainText("path");
    } else {
      await expect(editorPage.getByTestId("bad-query"), path).toHaveCount(0);
      await expect(editorPage.locator("h1").first(), path).toBeVisible();
    }
  }
});

// Issue 31, finding 10: a bad % escape in a dynamic route answered 500, signed in or not.
test("a path with a malformed % escape answers 400, signed in or not", async ({
  request,
  editorPage,
}) => {
  const pages = [
    "/chat/%E0%A4%A",
    "/chat/abc/turns/%zz",
    "/harness/memory/%",
    "/refinements/%C0%80",
    "/files/%zz",
  ];
  const signedInRequest = editorPage.context().request;
  for (const client of [request, signedInRequest]) {
    for (const path of pages) {
      const response = await client.get(path, { maxRedirects: 0 });
      expect(response.status(), path).toBe(400);
      expect(await response.text(), path).toMatch(/^Bad request/);
      expect(response.headers()["x-frame-options"], path).toBe("DENY");
    }
    const api = await client.get("/api/auth/%zz", { maxRedirects: 0 });
    expect(api.status()).toBe(400);
    expect(((await api.json()) as { error: string }).error).toMatch(/malformed % escape/);
  }
  // A valid escape still reaches the page (a chat that does not exist: not found, not 400).
  const valid = await signedInRequest.get("/chat/caf%C3%A9");
  expect(valid.status()).toBe(404);
});

// Finding 12.
test("the files editor refuses a file over 1 MiB in place and saves one near the limit", async ({
  editorPage,
}) => {
  await editorPage.goto("/files?dir=user");
  await editorPage.getByTestId("new-file-path").fill("big.md");
  const tooBig = "x".repeat(1024 * 1024 + 10);
  await editorPage.getByTestId("file-content-input").fill(tooBig);
  await editorPage.getByTestId("save-file").click();
  await expect(editorPage.getByTestId("save-status")).toContainText(
    "the limit is 1 MiB per file",
  );
  // The typed text is still there.
  expect(await editorPage.getByTestId("file-content-input").inputValue()).toHaveLength(
    tooBig.length,
  );

  // Near the limit, twice: the second save carries the new text and the one it started from
  // (about 1.9 MB), over Next's default 1 MB server-action body.
  const nearLimit = `${"y".repeat(950 * 1024)}\n`;
  await editorPage.getByTestId("file-content-input").fill(nearLimit);
  await editorPage.getByTestId("save-file").click();
  await expect(editorPage).toHaveURL(/path=big\.md/);
  await expect(editorPage.getByTestId("file-path")).toHaveText("big.md");
  await editorPage.getByTestId("file-content-input").fill(`${nearLimit}more\n`);
  await editorPage.getByTestId("save-file").click();
  await expect(editorPage.getByTestId("save-status")).toHaveText("Saved.");
});

// Finding 15.
test("/refine --global typed by a member is refused up front and records nothing", async ({
  editorPage,
  memberPage,
}) => {
  await newChat(memberPage, "Member refine");
  await memberPage.getByTestId("chat-input").fill("/refine --global remember the secret plan");
  await memberPage.getByTestId("send").click();
  await expect(memberPage.getByTestId("chat-error")).toContainText(
    "Only editors and admins can refine company knowledge",
  );
  await memberPage.goto("/refinements");
  await expect(memberPage.getByText("remember the secret plan")).toHaveCount(0);
  await expect(memberPage.getByTestId("refinement-row")).toHaveCount(0);
  await editorPage.goto("/refinements");
  await expect(editorPage.getByText("remember the secret plan")).toHaveCount(0);
});

// Finding 16.
test("a session token stops working after sign-out", async ({
  browser,
  team,
  signIn,
  watchCsp,
}) => {
  const page = await signIn(member(team), { onPage: watchCsp });
  const cookies = await page.context().cookies();
  await new AuthPages(page).signOut();
  await page.context().close();

  const replay = await browser.newContext();
  await replay.addCookies(cookies);
  const replayPage = await replay.newPage();
  await replayPage.goto("/chat");
  await expect(replayPage).toHaveURL(/\/sign-in/);
  await replay.close();

  // The member signs in again normally.
  const again = await signIn(member(team), { onPage: watchCsp });
  await again.context().close();
});
