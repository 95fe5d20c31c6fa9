import { redirect } from "next/navigation";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { AccountError } from "@/lib/accounts/accounts";
import { HarnessError, type Actor } from "@/lib/harness";
import { fail } from "./action-failure";
import { createActionClient, formAction } from "./create-action";

const member: Actor = { userId: "u1", workspaceId: "w1", role: "member" };
const editor: Actor = { ...member, role: "editor" };

function clientFor(actor: Actor) {
  const resolveActor = vi.fn(async () => actor);
  return { resolveActor, ...createActionClient({ resolveActor }) };
}

/** The digest Next gives `forbidden()`; it turns into HTTP 403 at the edge. */
async function rejectsAs403(promise: Promise<unknown>) {
  await expect(promise).rejects.toMatchObject({ digest: "NEXT_HTTP_ERROR_FALLBACK;403" });
}

const renameInput = z.object({
  chatId: z.string().min(1),
  title: z.string().trim().min(1, "Give the chat a title"),
});

// What `experimental.authInterrupts` in next.config sets for the app.
process.env.__NEXT_EXPERIMENTAL_AUTH_INTERRUPTS = "true";

afterEach(() => vi.restoreAllMocks());

describe("action", () => {
  it("returns the body's value as data, with the parsed input and the actor", async () => {
    const { action } = clientFor(member);
    const rename = action({ input: renameInput }, async ({ input, actor }) => ({
      title: input.title,
      by: actor.userId,
    }));
    expect(await rename({ chatId: "c1", title: "  Garden  " })).toEqual({
      ok: true,
      data: { title: "Garden", by: "u1" },
    });
  });

  it("refuses invalid input with one message and the messages per field, without running the body", async () => {
    const { action } = clientFor(member);
    const body = vi.fn(async () => "ran");
    const rename = action({ input: renameInput }, body);
    const result = await rename({ chatId: "", title: " " });
    expect(body).not.toHaveBeenCalled();
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("validation:input");
    expect(result.error.message).toContain("title: Give the chat a title");
    expect(result.error.message).toContain("chatId:");
    expect(result.error.fieldErrors?.title).toEqual(["Give the chat a title"]);
  });

  it("resolves the actor before reporting invalid input (a signed-out caller is redirected)", async () => {
    const resolveActor = vi.fn(async (): Promise<Actor> => redirect("/sign-in"));
    const { action } = createActionClient({ resolveActor });
    const rename = action({ input: renameInput }, async () => "ran");
    await expect(rename({ chatId: "", title: "" })).rejects.toMatchObject({
      digest: expect.stringContaining("NEXT_REDIRECT"),
    });
  });

  it("answers 403 below the action's role, without running the body", async () => {
    const { action } = clientFor(member);
    const body = vi.fn(async () => "ran");
    const adminOnly = action({ input: z.object({}), role: "admin" }, body);
    await rejectsAs403(adminOnly({}));
    expect(body).not.toHaveBeenCalled();
    const editorOnly = clientFor(editor).action({ input: z.object({}), role: "editor" }, body);
    expect(await editorOnly({})).toEqual({ ok: true, data: "ran" });
  });

  it("answers 403 for the body's forbidden() and for a core forbidden error (ownership)", async () => {
    const { action } = clientFor(member);
    const { forbidden } = await import("next/navigation");
    await rejectsAs403(action({ input: z.object({}) }, async () => forbidden())({}));
    const coreRefusal = action({ input: z.object({}) }, async () => {
      throw new HarnessError({ code: "forbidden:scope", message: "Not your chat." });
    });
    await rejectsAs403(coreRefusal({}));
  });

  it("keeps the text of deliberate refusals, not-found and account errors", async () => {
    const { action } = clientFor(member);
    const missing = action({ input: z.object({}) }, async () =>
      fail("not_found:chat", "That chat does not exist or is not yours."),
    );
    expect(await missing({})).toEqual({
      ok: false,
      error: { code: "not_found:chat", message: "That chat does not exist or is not yours." },
    });
    const coreMissing = action({ input: z.object({}) }, async () => {
      throw new HarnessError({ code: "not_found:entry", message: "No such entry." });
    });
    expect(await coreMissing({})).toEqual({
      ok: false,
      error: { code: "not_found:entry", message: "No such entry." },
    });
    const taken = action({ input: z.object({}) }, async () => {
      throw new AccountError("email_taken", "That email already has an account.");
    });
    expect(await taken({})).toEqual({
      ok: false,
      error: { code: "account:email_taken", message: "That email already has an account." },
    });
  });

  it("shows an unexpected error as a generic message and leaks nothing of it", async () => {
    // Logged for the operator (one JSON line on stderr by default), never shown.
    const logged = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const { action } = clientFor(member);
    const broken = action({ input: z.object({}) }, async () => {
      throw new Error("connect ECONNREFUSED 10.0.0.5:5432 password=hunter2");
    });
    const result = await broken({});
    expect(result).toEqual({
      ok: false,
      error: { code: "failed:internal", message: "Something went wrong. Try again." },
    });
    expect(JSON.stringify(result)).not.toMatch(/ECONNREFUSED|hunter2|5432/);
    const lines = logged.mock.calls.map(([chunk]) => String(chunk));
    logged.mockRestore();
    expect(lines.some((line) => line.includes("an unexpected error reached an edge"))).toBe(true);
  });
});

describe("publicAction and formAction", () => {
  it("runs without an actor and reads a form's fields", async () => {
    const { publicAction, resolveActor } = clientFor(member);
    const signIn = formAction(
      publicAction(
        { input: z.object({ email: z.string().min(1, "Enter your email") }) },
        async ({ input }) => input.email,
      ),
    );
    const filled = new FormData();
    filled.set("email", "ada@example.com");
    expect(await signIn(undefined, filled)).toEqual({ ok: true, data: "ada@example.com" });
    const empty = new FormData();
    empty.set("email", "");
    const refused = await signIn(undefined, empty);
    expect(refused.ok || refused.error.fieldErrors).toEqual({ email: ["Enter your email"] });
    expect(resolveActor).not.toHaveBeenCalled();
  });
});
