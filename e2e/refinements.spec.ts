import type { Page } from "@playwright/test";
import { expect, test, type Team } from "./support/fixtures";
import { scriptedModel } from "./support/model";
import { callServerAction, createChat, expectHarnessRows } from "./support/pages";

test.use({ workspaceName: "Refine Co" });

const editor = (team: Team) => team.person({ name: "Rhea", role: "editor" });
const member = (team: Team) => team.person({ name: "Remy", role: "member" });

/** A distinctive phrase of PLANNING_SYSTEM_PROMPT (lib/harness/refine/prompts.ts). */
const PLANNER = "You refine an agent's continual harness";

const plan = {
  summary: "Remember the deploy day",
  rationale: "The user said the team deploys on Fridays.",
  expectedOutcome: "Future chats plan releases for Fridays.",
  edits: [
    {
      action: "create",
      kind: "memory",
      title: "Deploy day",
      content: "We deploy on Fridays.",
      reason: "The user asked to remember it.",
    },
  ],
};

/** Scripts the planner with `plan` and sends `/refine --global …` in the open chat. */
async function refineGlobally(page: Page) {
  const model = scriptedModel();
  await model.reset();
  await model.setScript([{ whenSystemIncludes: PLANNER, reply: { text: JSON.stringify(plan) } }]);
  await page.getByTestId("chat-input").fill("/refine --global remember we deploy on Fridays");
  await page.getByTestId("send").click();
  await expectHarnessRows(page, "fridays", 1);
}

/** In a new chat "Release planning", refines the deploy day globally; returns the refinement's path. */
async function globalRefinement(page: Page): Promise<{ refinementUrl: string; chatUrl: string }> {
  await createChat(page, "Release planning");
  const chatUrl = page.url();
  await refineGlobally(page);
  await page.goto("/refinements?trigger=explicit");
  await page.getByTestId("refinement-row").first().getByTestId("refinement-link").click();
  await expect(page).toHaveURL(/\/refinements\/[^/?]+$/);
  return { refinementUrl: new URL(page.url()).pathname, chatUrl };
}

/** Rolls back the refinement at `refinementUrl` with one click. */
async function rollBack(page: Page, refinementUrl: string) {
  await page.goto(refinementUrl);
  await page.getByTestId("rollback").click();
  await expect(page.getByTestId("rollback-done")).toBeVisible();
}

test("/refine --global in a chat creates a global memory, listed in the history with its diff", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  const page = await signIn(editor(team));
  await page.goto("/chat");
  await createChat(page, "Release planning");
  await refineGlobally(page);
  await expect(page.getByTestId("entry-row")).toContainText("Deploy day");
  await expect(page.getByTestId("entry-row")).toContainText("[global:deploy-day]");

  // The planner was asked with the user's instructions, and only the planner was called.
  const requests = await model.requests();
  expect(requests).toHaveLength(1);
  expect(JSON.stringify(requests[0]?.messages)).toContain("remember we deploy on Fridays");

  await page.goto("/refinements");
  const row = page.locator('[data-testid="refinement-row"][data-trigger="explicit"]');
  await expect(row).toHaveCount(1);
  await expect(row).toHaveAttribute("data-scope", "global");
  await expect(row.getByTestId("refinement-summary")).toHaveText("Remember the deploy day");
  await expect(row.getByTestId("refinement-status")).toHaveAttribute("data-status", "applied");
  await expect(row.getByTestId("refinement-counts")).toContainText("1 created");
  await row.getByTestId("refinement-link").click();

  await expect(page).toHaveURL(/\/refinements\/[^/?]+$/);
  await expect(page.getByTestId("refinement-title")).toHaveText("Remember the deploy day");
  await expect(page.getByTestId("refinement-rationale")).toContainText("deploys on Fridays");
  await expect(page.getByTestId("refinement-expected-outcome")).toContainText(
    "plan releases for Fridays",
  );
  const edit = page.getByTestId("edit-card");
  await expect(edit).toHaveCount(1);
  await expect(edit.getByTestId("edit-result")).toHaveText("applied");
  await expect(edit.locator('[data-kind="added"]')).toContainText(["We deploy on Fridays."]);
  await expect(page.getByTestId("rollback")).toBeVisible();

  // The scope filter finds it; the local filter does not.
  await page.goto("/refinements?scope=local");
  await expect(page.getByTestId("refinement-row")).toHaveCount(0);
  await page.goto("/refinements?scope=global&trigger=explicit");
  await expect(page.getByTestId("refinement-row")).toHaveCount(1);
});

test("a member cannot roll back a global refinement, in the UI or by calling the action", async ({
  team,
  signIn,
}) => {
  const { refinementUrl } = await globalRefinement(await signIn(editor(team)));
  const page = await signIn(member(team));
  await page.goto(refinementUrl);
  await expect(page.getByTestId("refinement-title")).toHaveText("Remember the deploy day");
  await expect(page.getByTestId("rollback-unavailable")).toBeVisible();
  await expect(page.getByTestId("rollback")).toHaveCount(0);
  await expect(page.getByTestId("restore-version")).toHaveCount(0);

  const id = refinementUrl.split("/").at(-1)!;
  const response = await callServerAction(page.context().request, {
    pagePath: refinementUrl,
    file: "app/(app)/refinements/actions.ts",
    name: "rollbackRefinementAction",
    args: [{ id, decide: {} }],
  });
  expect(response.status(), await response.text()).toBe(403);

  // Nothing changed: the memory is still there and no rollback was recorded.
  await expectHarnessRows(page, "fridays", 1);
  await page.goto("/refinements?trigger=rollback");
  await expect(page.getByTestId("refinement-row")).toHaveCount(0);
});

test("one click rolls the refinement back: the memory is gone and the rollback is listed", async ({
  team,
  signIn,
}) => {
  const page = await signIn(editor(team));
  const { refinementUrl } = await globalRefinement(page);
  await page.goto(refinementUrl);
  await page.getByTestId("rollback").click();
  await expect(page.getByTestId("rollback-done")).toBeVisible();
  await expect(page.getByTestId("rolled-back-by-link")).toHaveCount(1);

  await expectHarnessRows(page, "fridays", 0);

  await page.goto("/refinements");
  const rollback = page.locator('[data-testid="refinement-row"][data-trigger="rollback"]');
  await expect(rollback).toHaveCount(1);
  await expect(rollback.getByTestId("refinement-summary")).toHaveText(
    "Rollback: Remember the deploy day",
  );
  await expect(rollback.getByTestId("refinement-counts")).toContainText("1 deleted");
  await rollback.getByTestId("refinement-link").click();
  await expect(page.getByTestId("rollback-of-link")).toHaveAttribute("href", refinementUrl);
  const edit = page.getByTestId("edit-card");
  await expect(edit).toHaveAttribute("data-action", "delete");
  await expect(edit.locator('[data-kind="removed"]')).toContainText(["We deploy on Fridays."]);
});

test("an entry changed after the refinement is shown as a conflict, and the person keeps it", async ({
  team,
  signIn,
}) => {
  const page = await signIn(editor(team));
  // Deploy day was refined once and rolled back already: it has a history.
  const { refinementUrl, chatUrl } = await globalRefinement(page);
  await rollBack(page, refinementUrl);
  await expectHarnessRows(page, "fridays", 0);

  await page.goto(chatUrl);
  await expect(page.getByTestId("chat-title")).toHaveText("Release planning");
  await refineGlobally(page);

  // Someone edits the memory by hand after the refinement.
  await page.getByTestId("entry-row").getByRole("link").click();
  const version = await page.getByTestId("entry-version").textContent();
  await page.getByLabel("Content").fill("We deploy on Thursdays now.");
  await page.getByTestId("save-entry").click();
  await expect(page.getByTestId("entry-version")).not.toHaveText(version ?? "");

  await page.goto("/refinements?trigger=explicit");
  await page.getByTestId("refinement-row").first().getByTestId("refinement-link").click();
  await page.getByTestId("rollback").click();
  const conflict = page.getByTestId("rollback-conflict");
  await expect(conflict).toHaveCount(1);
  // The first "deploy-day" has a history (created, rolled back), so the new memory gets a fresh slug.
  await expect(conflict).toContainText(/memory \[global:deploy-day(-\d+)?\]/);
  await expect(conflict.locator('[data-kind="removed"]')).toContainText([
    "We deploy on Thursdays now.",
  ]);
  await conflict.getByLabel("Keep").check();
  await page.getByTestId("apply-rollback").click();
  await expect(page.getByTestId("rollback-done")).toBeVisible();

  // The later change survived; the rollback is recorded with the entry skipped.
  await expectHarnessRows(page, "thursdays", 1);
  await page.goto("/refinements?trigger=rollback");
  await expect(page.getByTestId("refinement-row")).toHaveCount(2);
  await page.getByTestId("refinement-row").first().getByTestId("refinement-link").click();
  await expect(page.getByTestId("edit-card")).toHaveAttribute("data-result", "skipped");
});
