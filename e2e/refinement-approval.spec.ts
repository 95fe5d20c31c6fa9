import type { Page } from "@playwright/test";
import { expect, test as base, type Team } from "./support/fixtures";
import { scriptedModel } from "./support/model";
import { createChat } from "./support/pages";

const admin = (team: Team) => team.person({ name: "Ada", role: "admin" });
const member = (team: Team) => team.person({ name: "Milo", role: "member" });

/** A distinctive phrase of PLANNING_SYSTEM_PROMPT (lib/harness/refine/prompts.ts). */
const PLANNER = "You refine an agent's continual harness";

function planCreating(title: string, content: string) {
  return {
    summary: `Remember: ${title}`,
    rationale: `The user said: ${content}`,
    expectedOutcome: "Later chats know it.",
    edits: [{ action: "create", kind: "memory", title, content, reason: "Asked to remember it." }],
  };
}

/**
 * `adminPage`: the admin of a workspace that requires approval for global refinements, signed
 * in; `chatUrl`: the admin's chat "Release rules", where the refinements are asked for.
 */
const test = base.extend<{ adminPage: Page; chatUrl: string }>({
  adminPage: async ({ team, signIn }, provide) => {
    const adminPage = await signIn(admin(team));
    await adminPage.goto("/admin/settings");
    const needsApproval = adminPage.getByTestId("needs-approval");
    await needsApproval.check();
    await adminPage.getByTestId("save-settings").click();
    await expect(adminPage.getByText("Saved.")).toBeVisible();
    await adminPage.reload();
    await expect(adminPage.getByTestId("needs-approval")).toBeChecked();
    await provide(adminPage);
  },
  chatUrl: async ({ adminPage }, provide) => {
    await adminPage.goto("/chat");
    await createChat(adminPage, "Release rules");
    await provide(adminPage.url());
  },
});

test.use({ workspaceName: "Approvals Co" });

/** The global harness rows matching `q`. */
async function expectHarnessRows(page: Page, q: string, count: number) {
  await page.goto(`/harness?q=${encodeURIComponent(q)}`);
  await expect(page.getByTestId("entry-row")).toHaveCount(count);
}

/**
 * Runs `/refine --global` in the admin's chat with the planner scripted to return `plan`,
 * and returns the path of the refinement it recorded once it has `status`.
 */
async function refineGlobally(
  page: Page,
  chatUrl: string,
  plan: ReturnType<typeof planCreating>,
  status: string,
): Promise<string> {
  const model = scriptedModel();
  await model.reset();
  await model.setScript([{ whenSystemIncludes: PLANNER, reply: { text: JSON.stringify(plan) } }]);
  await page.goto(chatUrl);
  await page.getByTestId("chat-input").fill(`/refine --global ${plan.rationale}`);
  await page.getByTestId("send").click();
  const row = page
    .getByTestId("refinement-row")
    .filter({ has: page.getByTestId("refinement-summary").getByText(plan.summary) });
  // Refinements run after the turn, in the background.
  await expect(async () => {
    await page.goto("/refinements");
    await expect(row.getByTestId("refinement-status")).toHaveAttribute("data-status", status, {
      timeout: 1_000,
    });
  }).toPass({ timeout: 30_000 });
  await row.getByTestId("refinement-link").click();
  await expect(page).toHaveURL(/\/refinements\/[^/?]+$/);
  return new URL(page.url()).pathname;
}

/** The release freeze, proposed and approved: returns its refinement's path. */
async function approvedFreeze(page: Page, chatUrl: string): Promise<string> {
  const url = await refineGlobally(page, chatUrl, freeze, "pending");
  await page.getByTestId("approve").click();
  await expect(page.getByTestId("refinement-status")).toHaveAttribute("data-status", "applied");
  await expectHarnessRows(page, "december", 1);
  return url;
}

const freeze = planCreating("Release freeze", "No releases in the last week of December.");

test("with approval required, a global refinement waits; approving applies it", async ({
  adminPage,
  chatUrl,
  team,
  signIn,
}) => {
  const page = adminPage;
  const freezeRefinementUrl = await refineGlobally(
    page,
    chatUrl,
    planCreating("Release freeze", "No releases in the last week of December."),
    "pending",
  );
  await expect(page.getByTestId("approval-controls")).toBeVisible();
  await expect(page.getByTestId("edit-card")).toHaveCount(1);
  await expectHarnessRows(page, "december", 0);

  // A member sees the proposal but cannot decide it.
  const memberPage = await signIn(member(team));
  await memberPage.goto(freezeRefinementUrl);
  await expect(memberPage.getByTestId("refinement-title")).toHaveText("Remember: Release freeze");
  await expect(memberPage.getByTestId("approval-unavailable")).toBeVisible();
  await expect(memberPage.getByTestId("approve")).toHaveCount(0);
  await memberPage.context().close();

  await page.goto(freezeRefinementUrl);
  await page.getByTestId("approve").click();
  await expect(page.getByTestId("refinement-status")).toHaveAttribute("data-status", "applied");
  await expect(page.getByTestId("edit-result")).toHaveText("applied");
  await expectHarnessRows(page, "december", 1);
  await expect(page.getByTestId("entry-row")).toContainText("[global:release-freeze]");
});

test("rejecting a proposal applies nothing and keeps the note", async ({ adminPage, chatUrl }) => {
  const page = adminPage;
  const url = await refineGlobally(
    page,
    chatUrl,
    planCreating("Deploy by hand", "Deploys are done by hand from a laptop."),
    "pending",
  );
  await page.getByLabel("Rejection note").fill("We never deploy from laptops.");
  await page.getByTestId("reject").click();
  await expect(page.getByTestId("refinement-status")).toHaveAttribute("data-status", "rejected");
  await expect(page.getByTestId("approval-controls")).toHaveCount(0);
  await page.goto(url);
  await expect(page.getByText("We never deploy from laptops.")).toBeVisible();
  await expectHarnessRows(page, "laptop", 0);
});

test("a verdict is recorded on an applied refinement", async ({ adminPage, chatUrl }) => {
  const page = adminPage;
  const freezeRefinementUrl = await approvedFreeze(page, chatUrl);
  await page.goto(freezeRefinementUrl);
  await expect(page.getByText("No verdict yet.")).toBeVisible();
  // Nothing is pre-selected: the verdict must be chosen before it can be set.
  await expect(page.getByLabel("Verdict", { exact: true })).toHaveValue("");
  await expect(page.getByTestId("save-verdict")).toBeDisabled();
  await page.getByLabel("Verdict", { exact: true }).selectOption("refuted");
  await page.getByLabel("Verdict note").fill("The team shipped on December 28th anyway.");
  await page.getByTestId("save-verdict").click();
  await expect(page.getByTestId("verdict-form").getByTestId("form-info")).toHaveText(
    "Verdict saved.",
  );
  const verdict = page.getByTestId("outcome-verdict");
  await expect(verdict).toHaveAttribute("data-verdict", "refuted");
  await expect(verdict).toContainText("Refuted by you");
  await page.reload();
  await expect(verdict).toContainText("The team shipped on December 28th anyway.");
});

test("restoring the harness to a refinement's version undoes what came after, as a new refinement", async ({
  adminPage,
  chatUrl,
}) => {
  const page = adminPage;
  const freezeRefinementUrl = await approvedFreeze(page, chatUrl);
  const laterUrl = await refineGlobally(
    page,
    chatUrl,
    planCreating("Hotfix window", "Hotfixes ship before noon."),
    "pending",
  );
  await page.getByTestId("approve").click();
  await expect(page.getByTestId("refinement-status")).toHaveAttribute("data-status", "applied");
  await expectHarnessRows(page, "noon", 1);

  await page.goto(freezeRefinementUrl);
  await page.getByTestId("restore-version").click();
  await page.getByTestId("confirm-restore-version").click();
  // The restore is recorded as a refinement of its own, and the page moves to it.
  await expect(page).not.toHaveURL(freezeRefinementUrl);
  await expect(page).toHaveURL(/\/refinements\/[^/?]+$/);
  await expect(page.getByTestId("refinement-trigger")).toHaveText("Restore");
  await expect(page.getByTestId("refinement-status")).toHaveAttribute("data-status", "applied");

  await expectHarnessRows(page, "noon", 0);
  await expectHarnessRows(page, "december", 1);
  await page.goto(laterUrl);
  await expect(page.getByTestId("refinement-title")).toHaveText("Remember: Hotfix window");
});
