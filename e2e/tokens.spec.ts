import { expect, test } from "@playwright/test";
import { AuthPages } from "./support/pages";
import { createUser } from "./support/users";

const person = { email: "tess@example.com", password: "tess-pass-12", name: "Tess" };

const mcpRequest = (token: string) => ({
  headers: {
    Authorization: `Bearer ${token}`,
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
  },
  data: { jsonrpc: "2.0", id: 1, method: "tools/list" },
});

test("a person creates a token, copies it once, uses it for MCP, and revokes it", async ({
  page,
  context,
}) => {
  createUser({ ...person, role: "member", workspace: "Token Co" });
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await new AuthPages(page).signIn(person);
  await expect(page).toHaveURL(/\/chat$/);

  await page.getByTestId("nav-tokens").click();
  await expect(page).toHaveURL(/\/settings\/tokens$/);
  await expect(page.getByTestId("no-tokens")).toBeVisible();

  await page.getByTestId("token-name").fill("laptop — Claude Code");
  await page.getByTestId("token-expiry").selectOption("30");
  await page.getByTestId("create-token").click();
  const value = page.getByTestId("new-token-value");
  await expect(value).toHaveValue(/^cairn_pat_[A-Za-z0-9_-]{43}$/);
  const token = await value.inputValue();

  await page.getByTestId("copy-token").click();
  await expect(page.getByTestId("copy-token")).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);

  const row = page.getByTestId("token-row").filter({ hasText: "laptop — Claude Code" });
  await expect(row).toHaveAttribute("data-state", "active");
  await expect(row).toContainText(token.slice(0, 14));
  await expect(row.getByTestId("token-last-used")).toHaveText("never");

  // The token works against the MCP endpoint…
  const used = await page.request.post("/api/mcp", mcpRequest(token));
  expect(used.status()).toBe(200);
  expect(JSON.stringify(await used.json())).toContain('"memory"');

  // A memory file written through MCP shows on /files, with where it came from.
  const written = await page.request.post("/api/mcp", {
    ...mcpRequest(token),
    data: {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: {
        name: "memory",
        arguments: {
          command: "create",
          path: "/persistent/user/from-mcp.md",
          file_text: "Written by another agent.\n",
        },
      },
    },
  });
  expect(written.status()).toBe(200);
  expect(JSON.stringify(await written.json())).not.toContain('"isError":true');
  await page.goto("/files");
  await page.getByTestId("dir-user").click();
  await page.getByTestId("file-link").filter({ hasText: "from-mcp.md" }).click();
  await expect(page.getByTestId("file-content-input")).toHaveValue("Written by another agent.\n");
  await expect(page.getByTestId("history-via").first()).toHaveText("via mcp:laptop — Claude Code");
  await page.goto("/settings/tokens");

  // …is shown only once (a reload shows only its first characters)…
  await page.reload();
  await expect(page.getByTestId("new-token-value")).toHaveCount(0);
  await expect(page.locator("body")).not.toContainText(token);
  await expect(row.getByTestId("token-last-used")).not.toHaveText("never");

  // …and stops working the moment it is revoked.
  page.once("dialog", (dialog) => void dialog.accept());
  await row.getByTestId("revoke-token").click();
  await expect(row).toHaveAttribute("data-state", "revoked");
  const refused = await page.request.post("/api/mcp", mcpRequest(token));
  expect(refused.status()).toBe(401);
  expect(refused.headers()["www-authenticate"]).toContain('error="invalid_token"');
});
