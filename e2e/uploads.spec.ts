import type { Page } from "@playwright/test";
import { makeDocx, makeExecutable, makeReportPdf } from "../lib/documents/testing";
import { expect, test as base } from "./support/fixtures";
import { scriptedModel } from "./support/model";
import { createChat } from "./support/pages";

// Issue 25: an editor drops three documents (one bad) on company knowledge; two are converted and
// one refused with its reason; a member's agent reads the converted text; the original downloads
// byte for byte; a member cannot upload into company knowledge.
/** An editor and a member of the test's own workspace, each signed in on a page of their own. */
const test = base.extend<{ editorPage: Page; memberPage: Page }>({
  editorPage: async ({ team, signIn }, provide) => {
    await provide(await signIn(team.person({ name: "Uma Editor", role: "editor" })));
  },
  memberPage: async ({ team, signIn }, provide) => {
    await provide(await signIn(team.person({ name: "Max Member", role: "member" })));
  },
});

test.use({ workspaceName: "Upload Co" });

interface DroppedFile {
  name: string;
  type: string;
  /** The bytes, base64. */
  data: string;
}

/** Drops `files` on the company folder's upload panel with a real drop event. */
async function dropOnCompany(page: Page, files: DroppedFile[]) {
  await page.goto("/files?dir=company");
  await expect(page.getByTestId("upload-panel")).toBeVisible();
  const dataTransfer = await page.evaluateHandle((list) => {
    const transfer = new DataTransfer();
    for (const file of list) {
      const bytes = Uint8Array.from(atob(file.data), (char) => char.charCodeAt(0));
      transfer.items.add(new File([bytes], file.name, { type: file.type }));
    }
    return transfer;
  }, files);
  await page.getByTestId("upload-drop").dispatchEvent("drop", { dataTransfer });
}

/** Uploads the report PDF as company knowledge's policy.pdf and waits for its conversion. */
async function uploadPolicy(page: Page): Promise<Buffer> {
  const pdf = Buffer.from(await makeReportPdf());
  await dropOnCompany(page, [
    { name: "policy.pdf", type: "application/pdf", data: pdf.toString("base64") },
  ]);
  await expect(page.getByTestId("upload-row").filter({ hasText: "policy.pdf" })).toHaveAttribute(
    "data-state",
    "converted",
    { timeout: 30_000 },
  );
  return pdf;
}

test("an editor drops three documents on company knowledge: two converted, one refused with its reason", async ({
  editorPage: page,
}) => {
  const pdf = Buffer.from(await makeReportPdf());
  const files = [
    { name: "policy.pdf", type: "application/pdf", data: pdf.toString("base64") },
    {
      name: "handbook.docx",
      type: "application/octet-stream",
      data: Buffer.from(await makeDocx()).toString("base64"),
    },
    {
      name: "invoice.pdf",
      type: "application/pdf",
      data: Buffer.from(makeExecutable()).toString("base64"),
    },
  ];
  // A real drop event carrying the three files.
  await dropOnCompany(page, files);

  const rows = page.getByTestId("upload-row");
  await expect(rows).toHaveCount(3);
  await expect(page.getByTestId("upload-overall")).toHaveAttribute("value", "100");
  const bad = rows.filter({ hasText: "invoice.pdf" });
  await expect(bad).toHaveAttribute("data-state", "refused");
  await expect(bad.getByTestId("upload-reason")).toHaveText(
    "invoice.pdf: it is named .pdf but its content is a Windows executable; refused.",
  );
  for (const name of ["policy.pdf", "handbook.docx"]) {
    await expect(rows.filter({ hasText: name })).toHaveAttribute("data-state", "converted", {
      timeout: 30_000,
    });
  }
  // The batch is one commit in the history, marked as an upload; the converted text reads.
  await page.goto("/files?dir=company&path=uploads%2Fpolicy.pdf.md");
  await expect(page.getByTestId("file-content-input")).toHaveValue(
    /\| Hotel \| 180 EUR \| Manager \|/,
  );
  await expect(page.getByTestId("history-entry").last()).toContainText("upload");
});

test("the original downloads byte for byte", async ({ editorPage }) => {
  const pdf = await uploadPolicy(editorPage);
  await editorPage.goto("/files?dir=company&path=uploads%2Fpolicy.pdf");
  const download = editorPage.waitForEvent("download");
  await editorPage.getByTestId("download-file").click();
  const path = await (await download).path();
  const { readFileSync } = await import("node:fs");
  expect(Buffer.compare(readFileSync(path), pdf)).toBe(0);
});

test("a member's agent opens the converted file", async ({ editorPage, memberPage }) => {
  await uploadPolicy(editorPage);
  const model = scriptedModel();
  await model.reset();
  await model.setScript([
    {
      whenLastUserIncludes: "hotel limit",
      reply: {
        toolCalls: [
          { name: "bash", arguments: { command: "cat /persistent/company/uploads/policy.pdf.md" } },
        ],
      },
    },
    {
      whenLastIsToolResult: true,
      reply: { text: "The hotel limit is 180 EUR (policy.pdf, page 2)." },
    },
  ]);
  await createChat(memberPage, "Travel");
  await memberPage.getByTestId("chat-input").fill("What is the hotel limit in the travel policy?");
  await memberPage.getByTestId("send").click();
  await expect(memberPage.getByTestId("assistant-text").last()).toContainText("180 EUR");
  const requests = await model.requests();
  const toolResult = JSON.stringify(requests.at(-1)?.messages);
  expect(toolResult).toContain("<!-- page 2 -->");
  expect(toolResult).toContain("| Hotel | 180 EUR | Manager |");
});

test("a member cannot upload into company knowledge", async ({ memberPage }) => {
  await memberPage.goto("/files?dir=company");
  await expect(memberPage.getByTestId("dir-view")).toHaveAttribute(
    "data-dir",
    "/persistent/company",
  );
  await expect(memberPage.getByTestId("upload-panel")).toHaveCount(0);
  const response = await memberPage.request.post("/api/files/upload?dir=company", {
    headers: { "x-cairn-upload": "1", origin: new URL(memberPage.url()).origin },
    multipart: {
      name: "sneaky.md",
      file: { name: "sneaky.md", mimeType: "text/markdown", buffer: Buffer.from("# hi\n") },
    },
  });
  expect(response.status()).toBe(403);
  expect((await response.json()) as unknown).toMatchObject({
    error: expect.stringMatching(/read-only for your role/),
  });
  // Their own memory takes uploads.
  await memberPage.goto("/files?dir=user");
  await expect(memberPage.getByTestId("upload-panel")).toBeVisible();
});

test("in chat, a member attaches to their memory; an editor may choose company knowledge", async ({
  editorPage,
  memberPage,
}) => {
  await createChat(memberPage, "Attach");
  await expect(memberPage.getByTestId("attach-target")).toHaveCount(0);
  await memberPage.getByTestId("attach-input").setInputFiles({
    name: "my-notes.md",
    mimeType: "text/markdown",
    buffer: Buffer.from("# My notes\n\nBring the blue folder.\n"),
  });
  await expect(memberPage.getByTestId("chat-input")).toHaveValue(
    "[Attached: /persistent/user/uploads/my-notes.md]",
  );

  await createChat(editorPage, "Attach for the team");
  await editorPage.getByTestId("attach-target").selectOption("company");
  await editorPage.getByTestId("attach-input").setInputFiles({
    name: "onboarding.html",
    mimeType: "text/html",
    buffer: Buffer.from("<h1>Onboarding</h1><script>alert(1)</script><p>Day one: laptop.</p>"),
  });
  await expect(editorPage.getByTestId("chat-input")).toHaveValue(
    "[Attached: /persistent/company/uploads/onboarding.html.md]",
  );
  for (const [device, width] of [
    ["desktop", 1280],
    ["phone", 390],
  ] as const) {
    for (const scheme of ["light", "dark"] as const) {
      await editorPage.setViewportSize({ width, height: 800 });
      await editorPage.emulateMedia({ colorScheme: scheme });
      await editorPage.screenshot({
        path: `test-results/screenshots/${device}-${scheme}-chat-attach.png`,
      });
    }
  }
  await editorPage.setViewportSize({ width: 1280, height: 720 });
  await editorPage.emulateMedia({ colorScheme: "light" });
  // Everyone in the workspace reads it in company knowledge.
  await memberPage.goto("/files?dir=company&path=uploads%2Fonboarding.html.md");
  await expect(memberPage.getByText("Day one: laptop.").first()).toBeVisible();
});
