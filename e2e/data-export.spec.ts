import JSZip from "jszip";
import { expect, test } from "@playwright/test";
import { scriptedModel } from "./support/model";
import { AuthPages, createChat } from "./support/pages";
import { createUser } from "./support/users";

const person = { email: "dana@example.com", password: "dana-pass-12", name: "Dana" };
const other = { email: "olaf@example.com", password: "olaf-pass-12", name: "Olaf" };

/** Issue 27, item 4: Settings → Your data → "Download my data", a zip of the person's own data. */
test("a person downloads their data: chats, memory files and nothing of anyone else", async ({
  page,
  browser,
}) => {
  createUser({ ...person, role: "member", workspace: "Export Co" });
  createUser({ ...other, role: "member", workspace: "Export Co" });
  const model = scriptedModel();
  await model.reset();
  await model.setScript([
    {
      whenLastUserIncludes: "remember my shoe size",
      reply: {
        toolCalls: [
          {
            name: "memory",
            arguments: {
              command: "create",
              path: "/persistent/user/sizes.md",
              file_text: "Shoe size: 39\n",
            },
          },
        ],
      },
    },
    { whenLastIsToolResult: true, reply: { text: "Saved your shoe size." } },
    { whenLastUserIncludes: "Olaf's private question", reply: { text: "Olaf's private answer." } },
  ]);

  // Someone else in the workspace chats too: none of it may reach Dana's export.
  const otherPage = await (await browser.newContext()).newPage();
  await new AuthPages(otherPage).signIn(other);
  await expect(otherPage).toHaveURL(/\/chat$/);
  await createChat(otherPage, "Olaf's chat");
  await otherPage.getByTestId("chat-input").fill("Olaf's private question");
  await otherPage.getByTestId("send").click();
  await expect(otherPage.getByTestId("assistant-text").last()).toContainText(
    "Olaf's private answer.",
  );

  await new AuthPages(page).signIn(person);
  await expect(page).toHaveURL(/\/chat$/);
  await createChat(page, "Shoes");
  await page.getByTestId("chat-input").fill("Please remember my shoe size: 39");
  await page.getByTestId("send").click();
  await expect(page.getByTestId("assistant-text").last()).toContainText("Saved your shoe size.");

  await page.getByTestId("nav-your-data").click();
  await expect(page).toHaveURL(/\/settings\/data$/);
  await expect(page).toHaveTitle(/Your data/);
  await expect(page.getByTestId("no-exports")).toBeVisible();
  await page.getByTestId("request-export").click();
  const row = page.getByTestId("export-row").first();
  await expect(row).toHaveAttribute("data-status", "ready", { timeout: 30_000 });

  const downloadPromise = page.waitForEvent("download");
  await row.getByTestId("download-export").click();
  const download = await downloadPromise;
  expect(download.suggestedFilename()).toMatch(/^cairn-my-data-\d{4}-\d{2}-\d{2}\.zip$/);
  const stream = await download.createReadStream();
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  const zip = await JSZip.loadAsync(Buffer.concat(chunks));
  const names = Object.keys(zip.files).filter((name) => !zip.files[name]!.dir);
  expect(names).toEqual(
    expect.arrayContaining([
      "README.md",
      "chats/001-shoes.json",
      "chats/001-shoes.md",
      "memory/sizes.md",
    ]),
  );
  expect(await zip.file("memory/sizes.md")!.async("string")).toBe("Shoe size: 39\n");
  expect(await zip.file("chats/001-shoes.md")!.async("string")).toContain(
    "Please remember my shoe size: 39",
  );
  const everything = (await Promise.all(names.map((name) => zip.file(name)!.async("string")))).join(
    "\n",
  );
  expect(everything).not.toContain("Olaf");

  // The link is Dana's alone: Olaf gets a 404 for it.
  const href = await row.getByTestId("download-export").getAttribute("href");
  const refused = await otherPage.request.get(href!);
  expect(refused.status()).toBe(404);
  await otherPage.context().close();

  // "Delete my memory": the file and its history go, and so does the export that held it.
  page.once("dialog", (dialog) => void dialog.accept());
  await page.getByTestId("delete-memory").click();
  await expect(page.getByTestId("memory-deleted")).toContainText("Deleted 1 memory file");
  await expect(page.getByTestId("no-exports")).toBeVisible();
  const gone = await page.request.get(href!);
  expect(gone.status()).toBe(404);
  await page.goto("/files?dir=user");
  await expect(page.getByText("sizes.md")).toHaveCount(0);
});
