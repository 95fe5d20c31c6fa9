import { expect, test } from "@playwright/test";
import { AuthPages, callServerAction, createChat } from "./support/pages";
import { createUser } from "./support/users";

const person = { email: "wendy@example.com", password: "wendy-pass-1", name: "Wendy" };

test("a member of two workspaces switches between them; each keeps its own chats and role", async ({
  page,
}) => {
  createUser({ ...person, role: "editor", workspace: "Switch North" });
  createUser({ ...person, role: "member", workspace: "Switch South" });

  await new AuthPages(page).signIn(person);
  await expect(page).toHaveURL(/\/chat$/);
  // The oldest membership comes first.
  await expect(page.getByTestId("current-user")).toContainText("Switch North");
  await expect(page.getByTestId("current-role")).toHaveText("editor");

  await createChat(page, "North plans");
  const northChat = page.url();

  await page.getByTestId("workspace-select").selectOption({ label: "Switch South" });
  await page.getByTestId("switch-workspace").click();
  await expect(page.getByTestId("current-user")).toContainText("Switch South");
  await expect(page.getByTestId("current-role")).toHaveText("member");
  await expect(page).toHaveURL(/\/chat$/);
  await expect(page.getByTestId("new-chat")).toBeVisible();
  await expect(page.getByText("North plans")).toHaveCount(0);
  const response = await page.goto(northChat);
  expect(response?.status()).toBe(404);

  // Naming a workspace the user does not belong to changes nothing.
  await page.goto("/chat");
  const forged = await callServerAction(page.context().request, {
    pagePath: "/chat",
    file: "app/(app)/workspace-actions.ts",
    name: "switchWorkspaceAction",
    args: [{ workspaceId: "some-other-workspace" }],
  });
  expect(forged.status()).toBeLessThan(500);
  await page.reload();
  await expect(page.getByTestId("current-user")).toContainText("Switch South");

  await page.getByTestId("workspace-select").selectOption({ label: "Switch North" });
  await page.getByTestId("switch-workspace").click();
  await expect(page.getByTestId("current-user")).toContainText("Switch North");
  await expect(page.getByTestId("current-role")).toHaveText("editor");
  await expect(page.getByTestId("chat-list")).toContainText("North plans");
  await page.goto(northChat);
  await expect(page.getByTestId("chat-title")).toHaveText("North plans");
});
