/**
 * The browser specs' shared fixtures, in the Chat SDK's style (`tests/fixtures.ts`): each test
 * asks for what it needs and gets it fresh, so any one test runs alone
 * (`npx playwright test e2e/x.spec.ts -g "name"`) and no test leans on an earlier one.
 *
 * - `team`: a workspace of this test's own, and people in it made on demand with the `cairn`
 *   CLI (`team.person({ name, role })`). Names stay as written; emails and the workspace's name
 *   carry a tag of the test, so two tests never share data.
 * - `signIn(person, options)`: a new browser context (at the test's viewport unless `options`
 *   says otherwise) signed in as `person` on `/chat`, closed when the test ends.
 * - `firstAdmin`: the first account (Ada, admin of "Acme"), signed up through the first-sign-up
 *   page when the database is still empty (a test run alone), else the one e2e/auth.spec.ts made.
 *
 * Specs add their own (`test.extend`) for what several of their tests share, such as a page
 * signed in as a given role, or a worker-scoped fixture for what is costly to make and that no
 * test changes (a second server, e2e/support/app-server.ts; a seeded dir): it tags its data with
 * `workerTag` and makes its people with `makeTeam`. A spec whose tests run against a second
 * server points `baseURL` and `databaseUrl` at it, and `team` and `signIn` follow. Fixture
 * bodies name Playwright's callback `provide`, not `use`: the React hooks lint rule takes a call
 * to `use(…)` for a hook.
 */
import { createHash, randomUUID } from "node:crypto";
import {
  test as base,
  expect,
  type Browser,
  type Page,
  type TestInfo,
  type WorkerInfo,
} from "@playwright/test";
import { AuthPages, signedIn, type Person } from "./pages";
import { createUser, E2E_DATABASE_URL, type Role } from "./users";

export { expect };

/** Someone in a test's workspace. */
export interface TeamPerson extends Person {
  role: Role;
  workspace: string;
}

/** A test's own workspace. */
export interface Team {
  /** The workspace's name: the spec's base name and the test's tag. */
  name: string;
  /**
   * Creates `name` with `role` in the workspace (once per test: asking again for the same name
   * returns the same person). `email` defaults to `<name>.<tag>@example.com`, `password` to one
   * shared by every team.
   */
  person(options: { name: string; role: Role; email?: string; password?: string }): TeamPerson;
}

/** The first account, as e2e/auth.spec.ts signs it up. */
export const FIRST_ADMIN: Person = {
  name: "Ada Admin",
  email: "ada@example.com",
  password: "correct-horse-1",
};

/** Tells this worker's tags from another run's, should the server (and its database) be reused. */
const workerSalt = randomUUID();

/**
 * The password of everyone a `team` makes, written as `password: "…"` so that
 * e2e/zz-secrets-in-logs.spec.ts finds it and checks it never reaches the server's output.
 */
const teamCredentials = { password: "team-person-password-1" };

/** A short tag of the running test (and its repeat and retry), unique across runs. */
export function testTag(testInfo: TestInfo): string {
  const hash = createHash("sha256")
    .update(`${workerSalt}:${testInfo.testId}:${testInfo.repeatEachIndex}:${testInfo.retry}`)
    .digest("hex");
  return hash.slice(0, 8);
}

/** A short tag of the running worker, for what a worker-scoped fixture makes once. */
export function workerTag(workerInfo: WorkerInfo): string {
  const hash = createHash("sha256")
    .update(`${workerSalt}:worker:${workerInfo.workerIndex}`)
    .digest("hex");
  return hash.slice(0, 8);
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ".")
    .replace(/^\.|\.$/g, "");
}

/** Signs up the first account unless some account exists already. */
export async function ensureFirstAdmin(browser: Browser, person: Person = FIRST_ADMIN) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto("/sign-in");
    await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
    if (await page.getByTestId("first-sign-up-link").isVisible()) {
      await new AuthPages(page).signUpFirstUser(person);
    }
  } finally {
    await context.close();
  }
}

/**
 * The workspace `name` (made with its first person) and its people, whose emails carry `tag`,
 * in the database at `databaseUrl`: what `team` gives a test, for a worker-scoped fixture too.
 */
export function makeTeam(name: string, tag: string, databaseUrl = E2E_DATABASE_URL): Team {
  const people = new Map<string, TeamPerson>();
  return {
    name,
    person({ name: personName, role, email, password }) {
      const known = people.get(personName);
      if (known) return known;
      const person: TeamPerson = {
        name: personName,
        email: email ?? `${slug(personName)}.${tag}@example.com`,
        password: password ?? teamCredentials.password,
        role,
        workspace: name,
      };
      createUser(person, databaseUrl);
      people.set(personName, person);
      return person;
    },
  };
}

interface Fixtures {
  /** The name a spec gives its workspaces (`test.use({ workspaceName: "Chat Co" })`). */
  workspaceName: string;
  /** The database `team` makes people in: the suite's server's, unless a spec points elsewhere. */
  databaseUrl: string;
  team: Team;
  signIn: (
    person: Parameters<typeof signedIn>[1],
    options?: Parameters<typeof signedIn>[2],
  ) => Promise<Page>;
  firstAdmin: Person;
}

export const test = base.extend<Fixtures>({
  workspaceName: ["Team", { option: true }],

  databaseUrl: [E2E_DATABASE_URL, { option: true }],

  team: async ({ workspaceName, databaseUrl }, provide, testInfo) => {
    const tag = testTag(testInfo);
    await provide(makeTeam(`${workspaceName} ${tag}`, tag, databaseUrl));
  },

  signIn: async ({ browser, viewport }, provide) => {
    const pages: Page[] = [];
    await provide(async (person, options) => {
      // The test's viewport (`test.use({ viewport })`) unless the call names another.
      const page = await signedIn(browser, person, { viewport, ...options });
      pages.push(page);
      return page;
    });
    for (const page of pages) await page.context().close();
  },

  firstAdmin: async ({ browser }, provide) => {
    await ensureFirstAdmin(browser);
    await provide(FIRST_ADMIN);
  },
});
