import type { Page } from "@playwright/test";
import { expect, test, type Team } from "./support/fixtures";
import { scriptedModel } from "./support/model";
import { createChat } from "./support/pages";

// Issue 27, item 1: a member's agent proposes a change to a company policy; the member sees
// "suggested for review"; an editor approves it with the diff visible; the member's next chat
// sees the new text.

const editor = (team: Team) => team.person({ name: "Eve Editor", role: "editor" });
const member = (team: Team) => team.person({ name: "Max Member", role: "member" });
const admin = (team: Team) => team.person({ name: "Ada Admin", role: "admin" });

// Pages at 1280 × 900 (the screenshots' size).
test.use({ workspaceName: "Review Co", viewport: { width: 1280, height: 900 } });

const POLICY_PATH = "/persistent/company/policies/travel.md";
const POLICY = "# Travel policy\nBook economy.\nSubmit receipts within 30 days.\nAsk your lead.\n";

/** The policy as the first test leaves it (receipts within 60 days). */
const POLICY_AFTER_REVIEW = POLICY.replace("30 days", "60 days");

/** The editor writes the travel policy as `content` in the Files editor. */
async function writePolicy(page: Page, content: string) {
  await page.goto("/files?dir=company");
  await expect(page.getByTestId("dir-view")).toHaveAttribute("data-dir", "/persistent/company");
  await page.getByTestId("new-file-path").fill("policies/travel.md");
  await page.getByTestId("file-content-input").fill(content);
  await expect(page.getByTestId("save-file")).toBeEnabled();
  await page.getByTestId("save-file").click();
  await expect(page).toHaveURL(/path=policies%2Ftravel\.md|path=policies\/travel\.md/);
  await expect(page.getByTestId("file-content-input")).toHaveValue(content);
}

async function send(page: Page, text: string) {
  await page.getByTestId("chat-input").fill(text);
  await page.getByTestId("send").click();
}

/** Screenshots of the review page at both widths, light and dark, for a person to look at. */
async function screenshots(page: Page, name: string) {
  const dir = process.env.E2E_SCREENSHOT_DIR;
  if (!dir) return;
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: `${dir}/${name}-${width}-${scheme}.png`, fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 900 });
}

test("a member's agent suggests a policy change; an editor approves it from /review; the member's next chat reads it", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  await model.reset();
  await model.setScript([
    {
      whenLastUserIncludes: "write the travel policy",
      reply: {
        toolCalls: [
          {
            name: "memory",
            arguments: { command: "create", path: POLICY_PATH, file_text: POLICY },
          },
        ],
      },
    },
    {
      whenLastUserIncludes: "receipts are now 60 days",
      reply: {
        toolCalls: [
          {
            name: "memory",
            arguments: {
              command: "str_replace",
              path: POLICY_PATH,
              old_str: "within 30 days",
              new_str: "within 60 days",
            },
          },
        ],
      },
    },
    {
      whenLastUserIncludes: "what does the travel policy say",
      reply: { toolCalls: [{ name: "memory", arguments: { command: "view", path: POLICY_PATH } }] },
    },
    { whenLastIsToolResult: true, reply: { text: "Done: finance moved the deadline to 60 days." } },
  ]);

  // The editor writes the policy.
  const editorPage = await signIn(editor(team));
  await createChat(editorPage, "Policies");
  await send(editorPage, "write the travel policy");
  await expect(editorPage.getByTestId("turn-status").last()).toContainText("Memory saved: 1 file");

  // The member's agent changes it: kept for review, not applied, and the member is told so.
  const memberPage = await signIn(member(team));
  await createChat(memberPage, "Receipts");
  await send(memberPage, "receipts are now 60 days, fix the policy");
  await expect(memberPage.getByTestId("turn-suggested")).toContainText(
    "Suggested for review: 1 file",
  );
  const toolResults = (await model.requests())
    .flatMap((request) => request.messages)
    .filter((message) => message.role === "tool")
    .map((message) => JSON.stringify(message.content));
  expect(toolResults.some((text) => text.includes("suggested for review"))).toBe(true);
  await memberPage.goto(`/files?dir=company&path=policies/travel.md`);
  await expect(memberPage.getByTestId("file-rendered")).toContainText("within 30 days");
  await expect(memberPage.getByTestId("suggest-change")).toBeVisible();
  await memberPage.goto("/review");
  const mine = memberPage.getByTestId("suggestion-card");
  await expect(mine).toHaveCount(1);
  await expect(mine.getByTestId("suggestion-status")).toHaveText("open");
  await expect(mine.getByTestId("suggestion-approve")).toHaveCount(0);

  // The editor sees the count, the diff, and approves.
  await editorPage.goto("/chat");
  await expect(editorPage.getByTestId("nav-review-count")).toHaveText("1");
  await editorPage.getByTestId("nav-review").click();
  await expect(editorPage).toHaveURL(/\/review$/);
  const card = editorPage.getByTestId("suggestion-card");
  await expect(card).toHaveCount(1);
  await expect(card.getByTestId("suggestion-title")).toContainText(
    "/persistent/company/policies/travel.md",
  );
  await expect(card.getByTestId("suggestion-author")).toHaveText(member(team).name);
  await expect(card.getByTestId("suggestion-note")).toContainText("60 days");
  const diff = card.getByTestId("diff-view");
  await expect(diff.locator('[data-kind="removed"]')).toContainText("within 30 days");
  await expect(diff.locator('[data-kind="added"]')).toContainText("within 60 days");
  await screenshots(editorPage, "review-open");
  await card.getByTestId("suggestion-approve").click();
  await expect(card.getByTestId("form-info")).toHaveText("Approved and applied.");
  await editorPage.goto("/files?dir=company&path=policies/travel.md");
  await expect(editorPage.getByTestId("file-content-input")).toHaveValue(
    POLICY.replace("30 days", "60 days"),
  );

  // The member sees the decision, and their next chat reads the new text.
  await memberPage.goto("/review?status=decided");
  await expect(memberPage.getByTestId("suggestion-decision")).toContainText(
    `Approved by ${editor(team).name}`,
  );
  await screenshots(memberPage, "review-member-decided");
  await model.reset();
  await model.setScript([
    {
      whenLastUserIncludes: "what does the travel policy say",
      reply: { toolCalls: [{ name: "memory", arguments: { command: "view", path: POLICY_PATH } }] },
    },
    { whenLastIsToolResult: true, reply: { text: "Receipts are due within 60 days." } },
  ]);
  await createChat(memberPage, "Next chat");
  await send(memberPage, "what does the travel policy say about receipts?");
  await expect(memberPage.getByTestId("turn-status").last()).toBeVisible({ timeout: 20_000 });
  const seen = (await model.requests())
    .flatMap((request) => request.messages)
    .filter((message) => message.role === "tool")
    .map((message) => JSON.stringify(message.content));
  expect(seen.some((text) => text.includes("Submit receipts within 60 days."))).toBe(true);

  // The audit log shows both steps, each with its door.
  const adminPage = await signIn(admin(team));
  await adminPage.goto("/admin/audit");
  await expect(
    adminPage.locator('[data-testid="audit-row"][data-kind="suggestion.created"][data-via="chat"]'),
  ).toContainText(member(team).name);
  await expect(
    adminPage.locator('[data-testid="audit-row"][data-kind="suggestion.decided"][data-via="web"]'),
  ).toContainText(editor(team).name);
});

test("an editor rejects with a reason the member reads", async ({ team, signIn }) => {
  const model = scriptedModel();
  await model.reset();
  await model.setScript([
    {
      whenLastUserIncludes: "no receipts",
      reply: {
        toolCalls: [
          {
            name: "memory",
            arguments: {
              command: "str_replace",
              path: POLICY_PATH,
              old_str: "Submit receipts within 60 days.",
              new_str: "No receipts needed.",
            },
          },
        ],
      },
    },
    { whenLastIsToolResult: true, reply: { text: "Suggested." } },
  ]);
  await writePolicy(await signIn(editor(team)), POLICY_AFTER_REVIEW);
  const memberPage = await signIn(member(team));
  await createChat(memberPage, "No receipts");
  await send(memberPage, "no receipts any more");
  await expect(memberPage.getByTestId("turn-suggested")).toBeVisible();

  const editorPage = await signIn(editor(team));
  await editorPage.goto("/review");
  const card = editorPage.getByTestId("suggestion-card");
  await card.getByTestId("suggestion-reject").click();
  await card.getByTestId("suggestion-reason-input").fill("Finance still needs receipts.");
  await card.getByTestId("suggestion-reject-confirm").click();
  await expect(card.getByTestId("form-info")).toHaveText("Sent back.");

  await memberPage.goto("/review?status=decided");
  const rejected = memberPage
    .getByTestId("suggestion-card")
    .filter({ has: memberPage.getByTestId("suggestion-decision-note") });
  await expect(rejected.getByTestId("suggestion-decision-note")).toHaveText(
    "Finance still needs receipts.",
  );
});

test("a member suggests from the Files viewer and promotes a memory note; an editor's promotion is applied in one step", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  await model.reset();
  await model.setScript([
    {
      whenLastUserIncludes: "note the vpn",
      reply: {
        toolCalls: [
          {
            name: "memory",
            arguments: {
              command: "create",
              path: "/persistent/user/vpn.md",
              file_text: "Use the EU gateway for the VPN.\nMy laptop is the old one.\n",
            },
          },
        ],
      },
    },
    { whenLastIsToolResult: true, reply: { text: "Noted." } },
  ]);

  await writePolicy(await signIn(editor(team)), POLICY_AFTER_REVIEW);
  // From the Files viewer: a member edits a company file's text and sends it for review.
  const memberPage = await signIn(member(team));
  await memberPage.goto("/files?dir=company&path=policies/travel.md");
  await memberPage.getByTestId("suggest-change").click();
  const text = memberPage.getByTestId("suggest-text");
  await text.fill((await text.inputValue()).replace("Ask your lead.", "Ask your lead or finance."));
  await memberPage.getByTestId("suggest-note").fill("Finance answers these now.");
  await screenshots(memberPage, "files-suggest");
  await memberPage.getByTestId("suggest-send").click();
  await expect(memberPage.getByTestId("suggest-done")).toContainText("Suggested for review");

  // "Suggest for the team" from a memory note, cut down to the passage the team needs.
  await createChat(memberPage, "VPN");
  await send(memberPage, "note the vpn");
  await expect(memberPage.getByTestId("turn-status").last()).toContainText("Memory saved: 1 file");
  await memberPage.goto("/files?dir=user&path=vpn.md");
  await memberPage.getByTestId("promote").click();
  await memberPage.getByTestId("promote-target-dir").check();
  await memberPage.getByTestId("promote-path").fill("howto/vpn.md");
  await memberPage.getByTestId("promote-text").fill("Use the EU gateway for the VPN.");
  await screenshots(memberPage, "promote");
  await memberPage.getByTestId("promote-send").click();
  await expect(memberPage.getByTestId("suggest-done")).toContainText("Suggested for review");

  // The editor sees both and approves the promotion; then promotes a note of their own at once.
  const editorPage = await signIn(editor(team));
  await editorPage.goto("/review");
  await expect(editorPage.getByTestId("suggestion-card")).toHaveCount(2);
  const promoted = editorPage
    .getByTestId("suggestion-card")
    .filter({ hasText: "/persistent/company/howto/vpn.md" });
  await expect(promoted.getByTestId("suggestion-diff")).toContainText("Use the EU gateway");
  await promoted.getByTestId("suggestion-approve").click();
  await expect(promoted.getByTestId("form-info")).toHaveText("Approved and applied.");
  await editorPage.goto("/files?dir=company&path=howto/vpn.md");
  await expect(editorPage.getByTestId("file-content-input")).toHaveValue(
    "Use the EU gateway for the VPN.\n",
  );

  await createChat(editorPage, "Editor VPN");
  await send(editorPage, "note the vpn");
  await expect(editorPage.getByTestId("turn-status").last()).toContainText("Memory saved: 1 file");
  await editorPage.goto("/files?dir=user&path=vpn.md");
  await editorPage.getByTestId("promote").click();
  await editorPage.getByTestId("promote-title").fill("VPN gateway");
  await editorPage.getByTestId("promote-text").fill("Use the EU gateway for the VPN.");
  await editorPage.getByTestId("promote-send").click();
  await expect(editorPage.getByTestId("suggest-done")).toContainText("Added for the team.");
  await editorPage.goto("/review?status=decided");
  await expect(
    editorPage.getByTestId("suggestion-card").filter({ hasText: "New global memory: VPN gateway" }),
  ).toContainText(`Approved by ${editor(team).name}`);
});

test("a clash with a newer version is shown with both texts; the editor approves it merged", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  await model.reset();
  await model.setScript([
    {
      whenLastUserIncludes: "book business",
      reply: {
        toolCalls: [
          {
            name: "memory",
            arguments: {
              command: "str_replace",
              path: POLICY_PATH,
              old_str: "Book economy.",
              new_str: "Book business on flights over 6 hours.",
            },
          },
        ],
      },
    },
    { whenLastIsToolResult: true, reply: { text: "Long flights deserve business class." } },
  ]);
  await writePolicy(await signIn(editor(team)), POLICY_AFTER_REVIEW);
  const memberPage = await signIn(member(team));
  await createChat(memberPage, "Long flights");
  await send(memberPage, "book business on long flights");
  await expect(memberPage.getByTestId("turn-suggested")).toBeVisible();

  // Meanwhile an editor changes the same line in the Files editor.
  const editorPage = await signIn(editor(team));
  await editorPage.goto("/files?dir=company&path=policies/travel.md");
  const input = editorPage.getByTestId("file-content-input");
  await input.fill((await input.inputValue()).replace("Book economy.", "Book economy class."));
  await editorPage.getByTestId("save-file").click();
  await expect(editorPage.getByTestId("save-status")).toContainText("Saved");

  await editorPage.goto("/review");
  const card = editorPage
    .getByTestId("suggestion-card")
    .filter({ hasText: "Long flights deserve business class." });
  await card.getByTestId("suggestion-approve").click();
  const conflict = card.getByTestId("suggestion-conflict");
  await expect(conflict).toBeVisible();
  await expect(conflict.getByTestId("diff-view")).toContainText("Book economy class.");
  await expect(conflict.getByTestId("diff-view")).toContainText("Book business on flights");
  await card
    .getByTestId("suggestion-merge-input")
    .fill(
      "# Travel policy\nBook economy class; business on flights over 6 hours.\nSubmit receipts within 60 days.\nAsk your lead or finance.\n",
    );
  await screenshots(editorPage, "review-conflict");
  await card.getByTestId("suggestion-approve-merged").click();
  await expect(card.getByTestId("form-info")).toHaveText("Approved and applied.");
  await editorPage.goto("/files?dir=company&path=policies/travel.md");
  await expect(editorPage.getByTestId("file-content-input")).toHaveValue(
    "# Travel policy\nBook economy class; business on flights over 6 hours.\nSubmit receipts within 60 days.\nAsk your lead or finance.\n",
  );
});
