import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import Database from "better-sqlite3";
import { scriptedModel } from "./support/model";
import { AuthPages, createChat, signedIn } from "./support/pages";
import { createUser } from "./support/users";

// The e2e server runs with observability on (scripts/e2e-server.mjs): metrics behind
// CAIRN_METRICS_TOKEN, traces to the loopback OTLP receiver, single sign-on against the loopback
// issuer (e2e/support/oidc-issuer.ts; emails of sso.example join "SSO Corp"), and
// CAIRN_FAULT_INJECTION=fail-first-commit:fail-me.

const METRICS_TOKEN = "e2e-metrics-token-0123456789";
const otlp = `http://127.0.0.1:${process.env.E2E_OTLP_PORT ?? 3197}`;
const person = {
  email: "otto@example.com",
  password: "observed-pass-1",
  role: "member" as const,
  workspace: "SSO Corp",
  name: "Otto",
};
/** Words that must reach no span: the person's message and the file the agent writes. */
const SECRET_MESSAGE = "remember the lighthouse keeper Quillon";
const FILE_TEXT = "The lighthouse keeper is Quillon Marsh.\n";

test.beforeAll(() => {
  // Once per run: a worker restarted after a failure runs this again.
  try {
    createUser(person);
  } catch (error) {
    if (!String(error).includes("already a member")) throw error;
  }
});

/** `name{labels} value` lines of a scrape, as a lookup. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const match = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const body = match[2] ?? "";
    if (Object.entries(labels).every(([key, value]) => body.includes(`${key}="${value}"`))) {
      return Number(match[3]);
    }
  }
  return 0;
}

test("metrics: refused without the token, and the counters move with a turn", async ({
  browser,
  request,
}) => {
  expect((await request.get("/api/metrics")).status()).toBe(401);
  expect(
    (
      await request.get("/api/metrics", { headers: { authorization: "Bearer wrong-token" } })
    ).status(),
  ).toBe(401);
  const scrape = async () => {
    const response = await request.get("/api/metrics", {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    expect(response.status()).toBe(200);
    return response.text();
  };
  const before = await scrape();
  await fetch(`${otlp}/__reset`, { method: "POST" });

  const model = scriptedModel();
  await model.reset();
  await model.setScript([
    {
      whenLastUserIncludes: "lighthouse keeper Quillon",
      reply: {
        toolCalls: [
          {
            name: "memory",
            arguments: {
              command: "create",
              path: "/persistent/user/fail-me-lighthouse.md",
              file_text: FILE_TEXT,
            },
          },
        ],
      },
    },
    { whenLastIsToolResult: true, reply: { text: "Noted." } },
  ]);
  const page = await signedIn(browser, person);
  await createChat(page, "Lighthouse");
  await page.getByTestId("chat-input").fill(SECRET_MESSAGE);
  await page.getByTestId("send").click();
  await expect(page.getByTestId("save-pending")).toBeVisible();

  let after = "";
  await expect
    .poll(
      async () => {
        after = await scrape();
        return sample(after, "cairn_commits_total", { outcome: "retried" });
      },
      { timeout: 30_000 },
    )
    .toBeGreaterThan(sample(before, "cairn_commits_total", { outcome: "retried" }));
  const moved = (name: string, labels: Record<string, string> = {}) =>
    sample(after, name, labels) - sample(before, name, labels);
  expect(moved("cairn_chat_turns_started_total")).toBeGreaterThanOrEqual(1);
  expect(moved("cairn_chat_turns_finished_total", { status: "completed" })).toBeGreaterThanOrEqual(
    1,
  );
  expect(moved("cairn_tool_calls_total", { tool: "memory", outcome: "ok" })).toBeGreaterThanOrEqual(
    1,
  );
  expect(moved("cairn_commits_total", { outcome: "failed" })).toBeGreaterThanOrEqual(1);
  expect(
    moved("cairn_sign_in_attempts_total", { method: "password", outcome: "ok" }),
  ).toBeGreaterThanOrEqual(1);
  expect(sample(after, "cairn_chat_turn_duration_seconds_count")).toBeGreaterThanOrEqual(1);
  expect(after).toContain("cairn_job_queue_depth");
  expect(after).toContain("cairn_spool_bytes");
  // Bounded labels: no ids or emails of people.
  expect(after).not.toContain(person.email);

  // Traces: the turn's span with its children, the model's spans under it, and no text.
  type Span = {
    traceId: string;
    spanId: string;
    parentSpanId: string | null;
    name: string;
    attributes: Record<string, unknown>;
  };
  let received: { spans: Span[]; raw: string[] } = { spans: [], raw: [] };
  await expect
    .poll(
      async () => {
        received = (await (await fetch(`${otlp}/__spans`)).json()) as typeof received;
        const names = new Set(received.spans.map((span) => span.name));
        return ["cairn.chat.turn", "cairn.commit", "cairn.tool_call"].every((name) =>
          names.has(name),
        );
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  const turn = received.spans.find((span) => span.name === "cairn.chat.turn")!;
  const childrenOf = (parent: Span) =>
    received.spans.filter((span) => span.parentSpanId === parent.spanId).map((span) => span.name);
  expect(childrenOf(turn)).toEqual(
    expect.arrayContaining([
      "cairn.dirs.load",
      "cairn.prompt.build",
      "cairn.tool_call",
      "cairn.commit",
    ]),
  );
  expect(childrenOf(turn)).toContain("cairn.model.step");
  const tool = received.spans.find((span) => span.name === "cairn.tool_call")!;
  expect(tool.attributes["cairn.tool.name"]).toBe("memory");
  // The turn runs inside the request's span (Next's own).
  expect(turn.parentSpanId).not.toBeNull();
  const everything = received.raw.join("\n");
  expect(everything).not.toContain("Quillon");
  expect(everything).not.toContain("lighthouse keeper");
});

test("readiness says what is usable", async ({ request }) => {
  const response = await request.get("/api/ready");
  expect(response.status()).toBe(200);
  expect(await response.json()).toEqual({
    status: "ready",
    checks: {
      database: { ok: true },
      migrations: { ok: true },
      queue: { ok: true },
      spool: { ok: true },
    },
  });
});

/** Signs in at the loopback issuer (any password), consenting when it asks. */
async function signInWithSso(page: Page, login: string): Promise<void> {
  await page.goto("/sign-in");
  await page.getByTestId("oidc-sign-in").click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("issuer-any-password");
  await page.getByRole("button", { name: "Sign-in" }).click();
  // A first grant asks for consent; later ones go straight back to Cairn.
  const consent = page.getByRole("button", { name: "Continue" });
  await consent.waitFor({ state: "visible", timeout: 10_000 }).then(
    () => consent.click(),
    () => undefined,
  );
}

/** The workspaces and roles of the account with `email`, read from the e2e database. */
function membershipsOf(email: string): Array<{ name: string; role: string }> {
  const db = new Database(path.join(process.cwd(), "data", "e2e", "cairn.db"), { readonly: true });
  try {
    return db
      .prepare(
        `SELECT w.name AS name, m.role AS role FROM "Membership" m
           JOIN "Workspace" w ON w.id = m.workspaceId JOIN "User" u ON u.id = m.userId
           WHERE u.email = ? ORDER BY w.name`,
      )
      .all(email) as Array<{ name: string; role: string }>;
  } finally {
    db.close();
  }
}

// The button flow against the loopback issuer, end to end: authorization request, the issuer's
// login and consent, Auth.js's token request (the same redirect_uri both times: next.config.ts
// `skipProxyUrlNormalize`, lib/auth/callback-url.test.ts), userinfo, then Cairn's sign-in rules
// (also covered against both databases by lib/auth/oidc-sign-in.db.test.ts).
test("single sign-on: a new email of an allowed domain joins the workspace", async ({
  browser,
}) => {
  const page = await (await browser.newContext()).newPage();
  await signInWithSso(page, "nina");
  await expect(page).toHaveURL(/\/chat$/, { timeout: 15_000 });
  expect(membershipsOf("nina@sso.example")).toEqual([{ name: "SSO Corp", role: "member" }]);
  // Sign-out ends the Cairn session.
  await new AuthPages(page).signOut();
  await page.goto("/chat");
  await expect(page).toHaveURL(/\/sign-in/);
});

test("single sign-on: an existing account is matched by its verified email", async ({
  browser,
}) => {
  const page = await (await browser.newContext()).newPage();
  createUser({ ...person, email: "mia@sso.example", name: "Mia", workspace: "Mia Co" });
  await signInWithSso(page, "mia");
  await expect(page).toHaveURL(/\/chat$/, { timeout: 15_000 });
  // Matched, not joined anywhere new.
  expect(membershipsOf("mia@sso.example")).toEqual([{ name: "Mia Co", role: "member" }]);
});

test("single sign-on: the groups claim maps to a role when configured", async ({ browser }) => {
  const page = await (await browser.newContext()).newPage();
  await signInWithSso(page, "admin-ada");
  await expect(page).toHaveURL(/\/chat$/, { timeout: 15_000 });
  expect(membershipsOf("ada@sso.example")).toEqual([{ name: "SSO Corp", role: "admin" }]);
});

test("single sign-on: refuses other domains and unverified emails", async ({ browser }) => {
  const outsider = await (await browser.newContext()).newPage();
  await signInWithSso(outsider, "outsider-olga");
  await expect(outsider).toHaveURL(/\/sign-in\?error=oidc_no_account/, { timeout: 15_000 });
  await expect(outsider.getByText("its domain does not join automatically")).toBeVisible();

  const unverified = await (await browser.newContext()).newPage();
  await signInWithSso(unverified, "unverified-uma");
  await expect(unverified).toHaveURL(/\/sign-in\?error=oidc_unverified_email/, { timeout: 15_000 });
  await expect(unverified.getByText("did not confirm that email address")).toBeVisible();
});
