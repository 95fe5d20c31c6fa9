import type { Page } from "@playwright/test";
import { expect, test, type Team } from "./support/fixtures";
import { scriptedModel } from "./support/model";
import { createChat, send } from "./support/pages";

test.use({ workspaceName: "Chat Co" });

const member = (team: Team) => team.person({ name: "Mara", role: "member" });
const editor = (team: Team) => team.person({ name: "Eddie", role: "editor" });

async function newChat(page: Page, title: string) {
  await createChat(page, title);
}

const companyWrite = {
  toolCalls: [
    {
      name: "memory",
      arguments: {
        command: "create",
        path: "/persistent/company/policy.md",
        file_text: "Expenses need a receipt.\n",
      },
    },
  ],
};

test("the agent remembers across chats, and the model never sees the host status line", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  await model.reset();
  await model.setScript([
    {
      whenLastUserIncludes: "favourite colour is teal",
      reply: {
        toolCalls: [
          {
            name: "memory",
            arguments: {
              command: "create",
              path: "/persistent/user/preferences.md",
              file_text: "Favourite colour: teal\n",
            },
          },
        ],
      },
    },
    {
      whenLastIsToolResult: true,
      reply: { text: "Got it — I will remember that your favourite colour is **teal**." },
    },
  ]);
  const page = await signIn(member(team));
  await newChat(page, "Colours");
  await send(page, "Please remember that my favourite colour is teal");

  await expect(page.getByTestId("assistant-text").last()).toContainText("favourite colour is teal");
  await expect(page.getByTestId("tool-call").first()).toContainText(
    "memory · create /persistent/user/preferences.md",
  );
  await expect(page.getByTestId("turn-status").last()).toContainText("Memory saved: 1 file");

  // A new chat: the request the model receives lists the remembered file.
  await newChat(page, "Later");
  await send(page, "What do you know about me?");
  await expect(page.getByTestId("assistant-text").last()).toContainText(
    "You said: What do you know about me?",
  );
  const requests = await model.requests();
  const last = JSON.stringify(requests.at(-1)?.messages);
  expect(last).toContain("preferences.md");
  expect(last).toContain("Favourite colour: teal");
  for (const request of requests) {
    expect(JSON.stringify(request.messages)).not.toMatch(/Memory saved|savedFiles/);
  }

  // The Context panel shows the listed file for this turn.
  await expect(page.getByTestId("context-files")).toContainText("/persistent/user/preferences.md");
});

test("a member's write to company knowledge becomes a suggestion, not a commit; an editor's is committed", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  await model.reset();
  await model.setScript([
    { whenLastUserIncludes: "write the expense policy", reply: companyWrite },
    { whenLastIsToolResult: true, reply: { text: "Done with the policy step." } },
  ]);

  const memberPage = await signIn(member(team));
  await newChat(memberPage, "Policy attempt");
  await send(memberPage, "Please write the expense policy");
  await expect(memberPage.getByTestId("assistant-text").last()).toContainText(
    "Done with the policy step.",
  );
  // Issue 27: not refused and not applied — suggested for review (e2e/review.spec.ts follows it).
  await expect(memberPage.getByTestId("tool-call").first()).toHaveAttribute("data-failed", "false");
  const toolResult = JSON.stringify((await model.requests()).at(-1)?.messages.at(-1));
  expect(toolResult).toMatch(/suggested for review/i);
  await memberPage.goto("/files?dir=company");
  await expect(memberPage.getByTestId("dir-view")).toHaveAttribute(
    "data-dir",
    "/persistent/company",
  );
  await expect(memberPage.getByTestId("dir-view").getByText("policy.md")).toHaveCount(0);

  const editorPage = await signIn(editor(team));
  await newChat(editorPage, "Policy");
  await send(editorPage, "Please write the expense policy");
  await expect(editorPage.getByTestId("turn-status").last()).toContainText("Memory saved: 1 file");
  await expect(editorPage.getByTestId("tool-call").first()).toHaveAttribute("data-failed", "false");

  // The trace page shows the tool call and the commit.
  await editorPage.getByTestId("trace-link").last().click();
  await expect(
    editorPage.locator('[data-testid="trace-event"][data-type="tool.call"]'),
  ).toContainText("/persistent/company/policy.md");
  await expect(
    editorPage.locator('[data-testid="trace-event"][data-type="commit.succeeded"]'),
  ).toContainText("policy.md");
});

test("a provider error fails the turn with a clear message and saves nothing", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  await model.reset();
  await model.setScript([
    {
      whenLastUserIncludes: "break please",
      reply: {
        error: {
          status: 401,
          body: { error: { message: "bad key", type: "invalid_request_error" } },
        },
      },
    },
  ]);
  const page = await signIn(member(team));
  await newChat(page, "Broken");
  await send(page, "break please");
  await expect(page.getByTestId("chat-error")).toContainText("rejected the API key");
  await expect(page.getByTestId("chat-error")).toContainText("Nothing was saved");
  // After a reload the turn's host status line says the same.
  await page.reload();
  await expect(page.getByTestId("turn-status").last()).toContainText("The reply failed");
  await expect(page.getByTestId("context-panel")).toContainText("Turn failed");
});

test("/refine in a chat runs a refinement after the turn and shows its outcome card", async ({
  team,
  signIn,
}) => {
  const model = scriptedModel();
  await model.reset();
  const plan = {
    summary: "Remember the deploy day",
    rationale: "The user stated it explicitly.",
    expectedOutcome: "Answers about deploys use Fridays.",
    edits: [
      {
        action: "create",
        kind: "memory",
        title: "Deploy day",
        content: "We deploy on Fridays.",
        reason: "Stated by the user",
      },
    ],
  };
  await model.setScript([
    {
      whenSystemIncludes: "You refine an agent's continual harness",
      reply: { text: JSON.stringify(plan) },
    },
  ]);
  const page = await signIn(member(team));
  await newChat(page, "Deploys");
  await send(page, "/refine remember we deploy on Fridays");

  const card = page.getByTestId("refinement-card").first();
  await expect(card).toBeVisible({ timeout: 30_000 });
  await expect(card).toContainText("Remember the deploy day");
  await expect(card.getByTestId("refinement-counts")).toContainText("created 1");
  // The planning request carried the instructions and the conversation.
  const planning = (await model.requests()).find((request) =>
    JSON.stringify(request.messages).includes("You refine an agent"),
  );
  expect(JSON.stringify(planning?.messages)).toContain("remember we deploy on Fridays");
  // The memory is a local entry of this chat.
  await page.goto("/harness?q=fridays");
  await expect(page.getByTestId("entry-row")).toHaveCount(0);
  await page.goBack();
  await page.getByRole("link", { name: "This chat’s notes" }).click();
  await expect(page.getByTestId("entry-row")).toContainText("[local:deploy-day]");
});
