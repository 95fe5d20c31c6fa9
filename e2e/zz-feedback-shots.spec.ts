// TEMPORARY: screenshots of the feedback UI for review; deleted before the final commit.
import { expect, test } from "@playwright/test";
import { AuthPages } from "./support/pages";

for (const width of [1280, 390]) {
  for (const scheme of ["light", "dark"] as const) {
    test(`shots ${width} ${scheme}`, async ({ browser }) => {
      const context = await browser.newContext({
        viewport: { width, height: 900 },
        colorScheme: scheme,
      });
      await context.addInitScript((theme) => localStorage.setItem("theme", theme), scheme);
      const page = await context.newPage();
      await new AuthPages(page).signIn({ email: "fay@example.com", password: "member-pass-1" });
      await expect(page).toHaveURL(/\/chat$/);
      const dir = "/tmp/feedback-shots";
      await page.goto("/refinements");
      await page.waitForTimeout(500);
      await page.screenshot({ path: `${dir}/refinements-${width}-${scheme}.png`, fullPage: true });
      const id = await page.getByTestId("refinement-row").first().getAttribute("data-id");
      await page.goto(`/refinements/${id}`);
      await page.waitForTimeout(500);
      await page.screenshot({ path: `${dir}/refinement-${width}-${scheme}.png`, fullPage: true });
      await page.goto("/refinements/outcomes");
      await page.waitForTimeout(800);
      await page.screenshot({ path: `${dir}/outcomes-${width}-${scheme}.png`, fullPage: true });
      await page.goto("/chat");
      await page.getByRole("link", { name: "Deploys" }).first().click();
      const answer = page.getByTestId("message-assistant").nth(5);
      await answer.scrollIntoViewIfNeeded();
      await answer.getByRole("button", { name: "Bad response" }).click();
      await page.waitForTimeout(300);
      await page.getByTestId("feedback-form").scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${dir}/chat-${width}-${scheme}.png` });
      await context.close();
    });
  }
}
