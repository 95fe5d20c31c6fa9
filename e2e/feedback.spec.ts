import type { Page } from "@playwright/test";
import { expect, test as base } from "./support/fixtures";
import { scriptedModel } from "./support/model";
import { callServerAction, createChat } from "./support/pages";

/** Distinctive phrases of REVIEW_SYSTEM_PROMPT and PLANNING_SYSTEM_PROMPT (lib/harness/refine/prompts.ts). */
const REVIEWER = "You are the review gate of an agent's continual harness";
const PLANNER = "You refine an agent's continual harness";

const review = {
  shouldRefine: true,
  rationale: "Three answers were rated down for the deploy day.",
  instructions: "Record the deploy day.",
};
const plan = {
  summary: "Remember the deploy day from feedback",
  rationale: "Answers named the wrong deploy day; the comments say it is Friday.",
  expectedOutcome: "Answers about deploys name Friday.",
  edits: [
    {
      action: "create",
      kind: "memory",
      title: "Deploy day",
      content: "We deploy on Fridays.",
      reason: "Three thumbs-down said the deploy day was wrong.",
    },
  ],
};

const comments = ["It said Tuesday", "Still the wrong day", "Friday, please"];

/** `fayPage`: Fay, a member of the test's workspace, signed in. */
const test = base.extend<{ fayPage: Page }>({
  fayPage: async ({ team, signIn }, provide) => {
    await provide(await signIn(team.person({ name: "Fay", role: "member" })));
  },
});

test.use({ workspaceName: "Feedback Co" });

/** Sends `text` and waits for its answer (the answer's feedback buttons appear with its status). */
async function ask(page: Page, text: string) {
  const answers = page.getByTestId("message-assistant");
  const before = await answers.count();
  await page.getByTestId("chat-input").fill(text);
  await page.getByTestId("send").click();
  await expect(answers).toHaveCount(before + 1, { timeout: 30_000 });
  await expect(answers.nth(before).getByRole("button", { name: "Good response" })).toBeVisible({
    timeout: 30_000,
  });
  return answers.nth(before);
}

/**
 * In a new chat "Deploys", three answers rated down as a wrong fact with `comments`: the third
 * starts a review (scripted reviewer and planner). Returns the chat and the review's refinement.
 */
async function rateThreeDown(page: Page): Promise<{ chatUrl: string; refinementId: string }> {
  const model = scriptedModel();
  await model.reset();
  await model.setScript([
    { whenSystemIncludes: REVIEWER, reply: { text: JSON.stringify(review) } },
    { whenSystemIncludes: PLANNER, reply: { text: JSON.stringify(plan) } },
  ]);
  await createChat(page, "Deploys");
  const chatUrl = page.url();
  for (const [index, comment] of comments.entries()) {
    const answer = await ask(page, `When do we deploy? (${index + 1})`);
    await answer.getByRole("button", { name: "Bad response" }).click();
    const form = answer.getByTestId("feedback-form");
    await form.getByRole("button", { name: "Wrong fact" }).click();
    await form.getByLabel("Comment (optional)").fill(comment);
    await form.getByRole("button", { name: "Send feedback" }).click();
    await expect(answer.getByRole("button", { name: "Bad response" })).toHaveAttribute(
      "aria-pressed",
      "true",
    );
    if (index < 2) await expect(answer.getByTestId("feedback-review-started")).toHaveCount(0);
  }
  const started = page.getByTestId("feedback-review-started");
  await expect(started).toBeVisible();
  const refinementId = (await started.getAttribute("href"))!.split("/").at(-1)!;
  return { chatUrl, refinementId };
}

/** Waits until the review ran and its refinement's page shows the plan. */
async function openReviewedRefinement(page: Page, refinementId: string) {
  await expect(async () => {
    await page.goto(`/refinements/${refinementId}`);
    await expect(page.getByTestId("refinement-title")).toHaveText(plan.summary, { timeout: 1_000 });
  }).toPass({ timeout: 45_000 });
}

test("three answers rated down with comments start a review whose refinement cites them", async ({
  fayPage: page,
}) => {
  const model = scriptedModel();
  const { chatUrl, refinementId } = await rateThreeDown(page);

  // The review ran (scripted reviewer and planner) and its page cites the feedback.
  await openReviewedRefinement(page, refinementId);
  const cited = page.getByTestId("answered-feedback");
  await expect(cited).toHaveCount(3);
  for (const comment of comments)
    await expect(page.getByTestId("refinement-feedback")).toContainText(comment);
  await expect(page.getByTestId("refinement-feedback")).toContainText("Wrong fact");
  // The chat's card for it says it answers feedback and links to it.
  await page.goto(chatUrl);
  await expect(page.getByTestId("refinement-card-feedback")).toBeVisible();
  // The reviewer and the planner saw the rated answers with their comments.
  const requests = await model.requests();
  const planning = requests.find((request) => JSON.stringify(request.messages).includes(PLANNER));
  expect(JSON.stringify(planning?.messages)).toContain("Friday, please");
  expect(JSON.stringify(planning?.messages)).toContain("Wrong fact");
});

test("ten answers rated good after it mark the refinement supported, with its chart", async ({
  fayPage: page,
}) => {
  const { chatUrl, refinementId } = await rateThreeDown(page);
  await openReviewedRefinement(page, refinementId);
  await page.goto(chatUrl);
  for (let index = 0; index < 10; index += 1) {
    const answer = await ask(page, `Deploy question ${index + 1}`);
    await answer.getByRole("button", { name: "Good response" }).click();
    await expect(answer.getByRole("button", { name: "Good response" })).toHaveAttribute(
      "aria-pressed",
      "true",
    );
  }
  await page.goto(`/refinements/${refinementId}`);
  const rated = page.getByTestId("refinement-rated-answers");
  await expect(rated.getByTestId("auto-verdict")).toHaveAttribute("data-verdict", "supported");
  await expect(rated.getByTestId("auto-verdict")).toHaveText(/Supported by 10 rated answers/);
  await expect(rated.getByTestId("before-after-chart").locator("svg")).toBeVisible();
  await expect(rated).toContainText("Before: 0 of 3 good");
  await expect(rated).toContainText("After: 10 of 10 good (100%, 95% interval 72%–100%)");

  await page.goto("/refinements");
  const row = page.locator(`[data-testid="refinement-row"][data-id="${refinementId}"]`);
  await expect(row.getByTestId("auto-verdict")).toHaveAttribute("data-verdict", "supported");
  await expect(row.getByTestId("before-after-chart")).toBeVisible();

  await page.getByTestId("outcomes-link").click();
  await expect(page).toHaveURL(/\/refinements\/outcomes$/);
  await expect(page.getByTestId("outcome-timeline-chart").locator("svg").first()).toBeVisible();
  // The whole workspace: one range (no global refinement), the chat's refinement marked.
  await expect(page.getByTestId("outcome-range")).toHaveCount(1);
  await expect(page.getByTestId("outcome-marker")).toHaveCount(1);
  // This chat: split at its refinement, before and after.
  const chatId = chatUrl.split("/chat/")[1]!;
  await page.getByLabel("Chat").selectOption(chatId);
  await page.getByRole("button", { name: "Show" }).click();
  await expect(page).toHaveURL(new RegExp(`chat=${chatId}`));
  await expect(page.getByTestId("outcome-range")).toHaveCount(2);
  await expect(page.getByTestId("outcome-range").nth(0)).toContainText("0%");
  await expect(page.getByTestId("outcome-range").nth(1)).toContainText("100%");
  await expect(page.getByTestId("outcome-range").nth(1)).toContainText("72%–100%");
});

test("an answer can be rated with the keyboard alone", async ({ fayPage: page }) => {
  await scriptedModel().reset();
  await createChat(page, "Keyboard");
  const answer = await ask(page, "One more question");
  // From the answer's Copy button, Tab reaches the thumbs; Enter presses them.
  await answer.getByTestId("message-copy").focus();
  await page.keyboard.press("Tab");
  await expect(answer.getByRole("button", { name: "Good response" })).toBeFocused();
  await page.keyboard.press("Tab");
  const bad = answer.getByRole("button", { name: "Bad response" });
  await expect(bad).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(answer.getByTestId("feedback-form")).toBeVisible();
  await page.keyboard.press("Tab");
  await expect(answer.getByRole("button", { name: "Wrong fact" })).toBeFocused();
  await page.keyboard.press("Space");
  await expect(answer.getByRole("button", { name: "Wrong fact" })).toHaveAttribute(
    "aria-pressed",
    "true",
  );
  await answer.getByLabel("Comment (optional)").focus();
  await page.keyboard.type("typed without a mouse");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Tab");
  await expect(answer.getByRole("button", { name: "Send feedback" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(bad).toHaveAttribute("aria-pressed", "true");
  // Focus is back on the thumb that opened the form.
  await expect(bad).toBeFocused();
  // Changeable: Shift+Tab back to the good thumb and Enter replaces the rating.
  await page.keyboard.press("Shift+Tab");
  await page.keyboard.press("Enter");
  await expect(answer.getByRole("button", { name: "Good response" })).toHaveAttribute(
    "aria-pressed",
    "true",
  );
  await expect(bad).toHaveAttribute("aria-pressed", "false");
});

test("another person cannot rate someone else's answer, even by calling the action", async ({
  fayPage: page,
  team,
  signIn,
}) => {
  const { chatUrl, refinementId } = await rateThreeDown(page);
  await openReviewedRefinement(page, refinementId);
  const other = await signIn(team.person({ name: "Sol", role: "admin" }));
  // A turn id of Fay's chat, taken from her page.
  await page.goto(chatUrl);
  const link = page.getByTestId("message-assistant").first().locator('a[href*="/turns/"]').first();
  const turnId = (await link.getAttribute("href"))!.split("/turns/")[1]!.split(/[?#]/)[0]!;
  const response = await callServerAction(other.context().request, {
    pagePath: "/chat",
    file: "app/(app)/chat/feedback-actions.ts",
    name: "rateAnswerAction",
    args: [{ turnId, rating: "good" }],
  });
  expect(await response.text()).toContain("not_found:turn");
  // Her rating stands.
  await page.reload();
  await expect(
    page.getByTestId("message-assistant").first().getByRole("button", { name: "Bad response" }),
  ).toHaveAttribute("aria-pressed", "true");
  // Workspace numbers count her ratings without her comments.
  await other.goto("/refinements/outcomes");
  await expect(other.getByTestId("outcome-range").first()).toBeVisible();
  await expect(other.locator("body")).not.toContainText("It said Tuesday");
  await other.context().close();
});
