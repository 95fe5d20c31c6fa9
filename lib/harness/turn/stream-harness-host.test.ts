// Over 500 lines, knowingly: one case per host hook and staged-file path of streamHarness,
// sharing the turn's test support.
import { describe, expect, it } from "vitest";
import {
  createInMemoryCommitLog,
  createInMemoryDirBacking,
  memory,
  retryCommit,
  type InMemoryCommitLog,
  type InMemoryDirBacking,
  type PersistentDir,
} from "../persistent";
import type { Logger } from "../logger";
import { streamHarness } from "./stream-harness";
import {
  drain,
  promptText,
  scriptedModel,
  textReply,
  toolCallReply,
  toolResults,
  userMessage,
} from "./internal/testing";
import type { HarnessDefinition, TurnPersistenceErrorEvent, TurnResult } from "./types";

type Extra = { userId: string; role: "member" | "editor" };
type Session = { chatId: string };

const member: Extra = { userId: "u1", role: "member" };
const session: Session = { chatId: "chat-1" };

interface Setup {
  user: InMemoryDirBacking;
  company: InMemoryDirBacking;
  uploads: InMemoryDirBacking;
  commitLog: InMemoryCommitLog;
  dirs: PersistentDir<Extra, Session>[];
  definition(
    model: ReturnType<typeof scriptedModel>,
    extra?: Partial<HarnessDefinition<Extra, Session>>,
  ): HarnessDefinition<Extra, Session>;
}

/** A memory dir (after-turn), a company dir only editors may write, and a manual uploads dir. */
function setup(): Setup {
  const user = createInMemoryDirBacking({
    files: { "preferences.md": "Prefers short answers.\n", "notes/2025.md": "Moved to Lyon.\n" },
  });
  const company = createInMemoryDirBacking({
    files: { "handbook.md": "# Handbook\n", "policies/leave.md": "25 days.\n" },
  });
  const uploads = createInMemoryDirBacking();
  const commitLog = createInMemoryCommitLog();
  const dirs: PersistentDir<Extra, Session>[] = [
    memory<Extra, Session>({ harnessDir: "/persistent/user", ...user }),
    {
      harnessDir: "/persistent/company",
      ...company,
      canWrite: ({ extraBody }) => extraBody.role === "editor",
    },
    {
      harnessDir: "/persistent/uploads",
      commit: "manual",
      ...uploads,
      limits: { maxFileBytes: 64 },
    },
  ];
  return {
    user,
    company,
    uploads,
    commitLog,
    dirs,
    definition: (model, extra = {}) => ({
      model: () => model,
      instructions: "You are a test assistant.",
      persistentDirs: dirs,
      commitLog,
      ...extra,
    }),
  };
}

function failingStore(backing: InMemoryDirBacking, message: string): InMemoryDirBacking {
  return {
    ...backing,
    store: async () => {
      throw new Error(message);
    },
  };
}

describe("streamHarness onPersistenceError", () => {
  it("fires once per failed or conflicting commit, with the record, and never reaches the model", async () => {
    const base = setup();
    const user = failingStore(base.user, "disk full: backing store exploded");
    const companyBacking = base.company;
    const dirs: PersistentDir<Extra, Session>[] = [
      memory<Extra, Session>({ harnessDir: "/persistent/user", ...user }),
      {
        harnessDir: "/persistent/company",
        load: companyBacking.load,
        // Another writer always got there first: compare-and-swap never succeeds.
        store: async () => ({ status: "conflict", message: "someone else wrote first" }),
      },
    ];
    const fromDefinition: TurnPersistenceErrorEvent<Extra, Session>[] = [];
    const fromOptions: TurnPersistenceErrorEvent<Extra, Session>[] = [];
    const model = scriptedModel([
      toolCallReply("memory", {
        command: "create",
        path: "/persistent/user/colour.md",
        file_text: "teal\n",
      }),
      toolCallReply(
        "memory",
        { command: "create", path: "/persistent/company/x.md", file_text: "x\n" },
        "call-2",
      ),
      textReply("Noted."),
    ]);
    const definition: HarnessDefinition<Extra, Session> = {
      ...base.definition(model),
      persistentDirs: dirs,
      onPersistenceError: (event) => {
        fromDefinition.push(event);
      },
    };
    const turn = streamHarness({
      harness: definition,
      messages: [userMessage("Remember teal")],
      session,
      extraBody: member,
      onPersistenceError: (event) => {
        fromOptions.push(event);
        throw new Error("a broken alerting hook changes nothing");
      },
    });
    const result = await drain(turn);

    expect(result.status).toBe("completed");
    expect(result.persistence.status).toBe("failed");
    for (const events of [fromDefinition, fromOptions]) {
      expect(events).toHaveLength(2);
      const byDir = Object.fromEntries(events.map((event) => [event.commit.harnessDir, event]));
      expect(byDir["/persistent/user"]).toMatchObject({
        commit: { status: "failed", error: { message: "disk full: backing store exploded" } },
        record: { status: "failed", harnessDir: "/persistent/user" },
        extraBody: member,
        session,
      });
      expect(byDir["/persistent/user"]!.error).toBeInstanceOf(Error);
      expect(byDir["/persistent/company"]).toMatchObject({
        commit: { status: "conflict" },
        record: { status: "conflict", harnessDir: "/persistent/company" },
        error: undefined,
      });
      for (const event of events) {
        expect(event.commit.commitId).toBe(event.record!.id);
        expect(await base.commitLog.getCommit({ id: event.record!.id })).not.toBeNull();
      }
    }
    // Not in this turn's model calls, nor in the next turn's, which carries the whole exchange.
    for (const call of model.doStreamCalls)
      expect(promptText(call)).not.toMatch(/exploded|someone else/);
    const next = scriptedModel([textReply("Hello again.")]);
    await drain(
      streamHarness({
        harness: { ...definition, model: () => next },
        messages: [userMessage("Remember teal"), result.responseMessage!, userMessage("Hi", "u-2")],
        session,
        extraBody: member,
      }),
    );
    expect(promptText(next.doStreamCalls[0]!)).not.toMatch(/exploded|someone else|failed/);
    // The second turn changed nothing, so it committed nothing and fired nothing.
    expect(fromDefinition).toHaveLength(2);
  });

  it("logs a failing hook's error through the definition's logger instead of swallowing it", async () => {
    const base = setup();
    const logged: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const logger: Logger = {
      error: (fields, message) => void logged.push({ fields, message }),
      warn: () => undefined,
      info: () => undefined,
      debug: () => undefined,
      child: () => logger,
    };
    const broken = new Error("the pager is down");
    const result = await drain(
      streamHarness({
        harness: {
          ...base.definition(
            scriptedModel([
              toolCallReply("memory", {
                command: "create",
                path: "/persistent/user/x.md",
                file_text: "x\n",
              }),
              textReply("ok"),
            ]),
          ),
          persistentDirs: [
            memory<Extra, Session>({
              harnessDir: "/persistent/user",
              ...failingStore(base.user, "disk full"),
            }),
          ],
          logger,
        },
        messages: [userMessage("hello")],
        session,
        extraBody: member,
        turnId: "turn-7",
        onPersistenceError: () => {
          throw broken;
        },
      }),
    );
    // The turn goes on; the host hears of the broken hook.
    expect(result.status).toBe("completed");
    expect(logged).toEqual([
      {
        message: "a persistence-error hook failed",
        fields: { err: broken, turnId: "turn-7", commitStatus: "failed" },
      },
    ]);
  });

  it("fires for a failed commitManual() too, and the record can be retried", async () => {
    const base = setup();
    let broken = true;
    const uploads: PersistentDir<Extra, Session> = {
      harnessDir: "/persistent/uploads",
      commit: "manual",
      load: base.uploads.load,
      store: async (options) => {
        if (broken) throw new Error("object store unavailable");
        return base.uploads.store(options);
      },
    };
    const events: TurnPersistenceErrorEvent<Extra, Session>[] = [];
    const turn = streamHarness({
      harness: { ...base.definition(scriptedModel([textReply("ok")])), persistentDirs: [uploads] },
      messages: [userMessage("hello")],
      session,
      extraBody: member,
      onPersistenceError: (event) => {
        events.push(event);
      },
    });
    const result = await drain(turn);
    await result.files.write("/persistent/uploads/a.txt", "A");
    expect(events).toHaveLength(0);
    const manual = await result.commitManual();
    expect(manual.status).toBe("failed");
    expect(events).toHaveLength(1);
    expect(events[0]!.commit).toMatchObject({ harnessDir: "/persistent/uploads", mode: "manual" });

    broken = false;
    const retried = await retryCommit({
      id: events[0]!.record!.id,
      dirs: [uploads],
      commitLog: base.commitLog,
    });
    expect(retried.status).toBe("succeeded");
    expect(base.uploads.files()).toEqual({ "a.txt": "A" });
  });
});

describe("streamHarness host-staged files", () => {
  it("stores a manual dir's staged files (text, bytes, streams) through commitManual()", async () => {
    const { definition, uploads, user } = setup();
    const turn = streamHarness({
      harness: definition(scriptedModel([textReply("Got it.")])),
      messages: [userMessage("Here is my report")],
      session,
      extraBody: member,
    });
    // Before the dirs have loaded: waits for them, then lands before the model starts.
    const early = turn.files.write("/persistent/uploads/early.txt", "staged early");
    const result = await drain(turn);
    expect(await early).toMatchObject({ mode: "manual", commit: "manual", bytes: 12 });
    expect(uploads.storeCalls).toHaveLength(0);

    const bytes = new Uint8Array([0, 1, 2, 255]);
    await result.files.write("/persistent/uploads/raw.bin", bytes);
    await result.files.write(
      "/persistent/uploads/streamed.txt",
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("from a "));
          controller.enqueue(new TextEncoder().encode("web stream"));
          controller.close();
        },
      }),
    );
    await result.files.write(
      "/persistent/uploads/iterated.md",
      (async function* () {
        yield "# From an ";
        yield "async iterable\n";
      })(),
    );
    const manual = await result.commitManual();

    expect(manual).toMatchObject({
      status: "succeeded",
      commits: [{ harnessDir: "/persistent/uploads", status: "succeeded" }],
    });
    expect(uploads.storeCalls).toHaveLength(1);
    const stored = uploads.files();
    expect(stored["early.txt"]).toBe("staged early");
    expect(stored["raw.bin"]).toEqual(bytes);
    expect(new TextDecoder().decode(stored["streamed.txt"] as Uint8Array)).toBe(
      "from a web stream",
    );
    expect(stored["iterated.md"]).toBe("# From an async iterable\n");
    expect(user.storeCalls).toHaveLength(0);
    const hostEvents = result.trace.filter((event) => event.type === "host.write");
    expect(hostEvents.map((event) => event.type === "host.write" && event.path)).toEqual([
      "/persistent/uploads/early.txt",
      "/persistent/uploads/raw.bin",
      "/persistent/uploads/streamed.txt",
      "/persistent/uploads/iterated.md",
    ]);
  });

  it("commits an after-turn write made before the boundary with the turn; one made after it is gone at the next turn", async () => {
    const { definition, user } = setup();
    const inFlight: Promise<unknown>[] = [];
    let turn: ReturnType<typeof streamHarness> | null = null;
    const model = scriptedModel([textReply("Done.")], () => {
      // During the turn, a slow upload: the commit boundary waits for it.
      inFlight.push(
        turn!.files.write(
          "/persistent/user/during.md",
          (async function* () {
            for (const part of ["written ", "while ", "streaming\n"]) {
              await new Promise((resolve) => setTimeout(resolve, 5));
              yield part;
            }
          })(),
        ),
      );
    });
    turn = streamHarness({
      harness: definition(model),
      messages: [userMessage("hello")],
      session,
      extraBody: member,
    });
    const before = turn.files.write("/persistent/user/before.md", "staged before the model\n");
    const result = await drain(turn);

    expect(await before).toMatchObject({ mode: "after-turn", commit: "after-turn" });
    expect(inFlight).toHaveLength(1);
    expect(await inFlight[0]).toMatchObject({ commit: "after-turn" });
    // The model saw the staged file in its memory listing.
    expect(promptText(model.doStreamCalls[0]!)).toContain("before.md");
    expect(result.persistence).toMatchObject({
      status: "succeeded",
      commits: expect.arrayContaining([
        expect.objectContaining({
          harnessDir: "/persistent/user",
          status: "succeeded",
          changes: expect.objectContaining({ created: ["before.md", "during.md"] }) as unknown,
        }),
      ]) as unknown,
    });
    expect(user.files()["before.md"]).toBe("staged before the model\n");
    expect(user.files()["during.md"]).toBe("written while streaming\n");

    // After the boundary: accepted into this checkout only, and said so.
    expect(await result.files.write("/persistent/user/after.md", "too late\n")).toMatchObject({
      commit: "none",
    });
    expect(await result.files.read("/persistent/user/after.md")).toBe("too late\n");
    // commitManual() commits manual dirs only: the after-turn write is not among them.
    expect(await result.commitManual()).toMatchObject({
      commits: [{ harnessDir: "/persistent/uploads", status: "skipped" }],
    });
    const next = await drain(
      streamHarness({
        harness: definition(scriptedModel([textReply("Hi.")])),
        messages: [userMessage("again")],
        session,
        extraBody: member,
      }),
    );
    expect(await next.files.read("/persistent/user/after.md")).toBeNull();
    expect(user.files()["after.md"]).toBeUndefined();
    expect(user.storeCalls).toHaveLength(1);
  });

  it("refuses read-only dirs at once without reading the content, and bad paths and oversize content", async () => {
    const { definition, company, uploads } = setup();
    const turn = streamHarness({
      harness: definition(scriptedModel([textReply("ok")])),
      messages: [userMessage("hello")],
      session,
      extraBody: member,
    });
    const result = await drain(turn);
    let pulled = 0;
    const neverRead = new ReadableStream<string>({
      pull(controller) {
        pulled += 1;
        controller.enqueue("x");
      },
    });
    await expect(
      result.files.write("/persistent/company/policy.md", neverRead),
    ).rejects.toMatchObject({
      code: "forbidden:dir",
      message: expect.stringMatching(/read-only/) as unknown,
    });
    // A ReadableStream pulls once to fill its queue when created; the write read nothing more.
    expect(pulled).toBeLessThanOrEqual(1);
    expect(neverRead.locked).toBe(false);
    let started = false;
    await expect(
      result.files.write(
        "/persistent/company/policy.md",
        (async function* () {
          started = true;
          yield "x";
        })(),
      ),
    ).rejects.toMatchObject({ code: "forbidden:dir" });
    expect(started).toBe(false);

    for (const [path, code] of [
      ["/persistent/uploads/../company/x.md", "validation:path"],
      ["/persistent/uploads/a\u0000b.md", "validation:path"],
      ["/etc/passwd", "not_found:dir"],
      ["persistent/uploads/relative.md", "validation:path"],
    ] as const) {
      await expect(result.files.write(path, "x")).rejects.toMatchObject({ code });
    }

    let chunks = 0;
    await expect(
      result.files.write(
        "/persistent/uploads/big.bin",
        (async function* () {
          for (;;) {
            chunks += 1;
            yield new Uint8Array(40);
          }
        })(),
      ),
    ).rejects.toMatchObject({
      code: "validation:path",
      message: expect.stringMatching(/larger than 64 B/) as unknown,
    });
    expect(chunks).toBe(2);
    await expect(
      result.files.write("/persistent/uploads/big.txt", "y".repeat(65)),
    ).rejects.toMatchObject({
      code: "validation:path",
    });

    expect(await result.commitManual()).toMatchObject({
      commits: [{ harnessDir: "/persistent/uploads", status: "skipped", skipReason: "no-changes" }],
    });
    expect(company.storeCalls).toHaveLength(0);
    expect(uploads.storeCalls).toHaveLength(0);
    const refused = result.trace.filter((event) => event.type === "host.refused");
    expect(refused).toHaveLength(8);
    expect(refused[0]).toMatchObject({
      operation: "write",
      path: '"/persistent/company/policy.md"',
      error: { code: "forbidden:dir" },
    });
  });

  it("rejects host writes when the harness has no persistent dirs or they failed to load", async () => {
    const noDirs = streamHarness({
      harness: { model: () => scriptedModel([textReply("ok")]), instructions: "x" },
      messages: [userMessage("hi")],
      session,
      extraBody: member,
    });
    await expect(noDirs.files.write("/persistent/user/a.md", "a")).rejects.toMatchObject({
      code: "not_found:dir",
    });
    await drain(noDirs);

    const { definition } = setup();
    const broken: PersistentDir<Extra, Session> = {
      harnessDir: "/persistent/user",
      load: async () => {
        throw new Error("database is down");
      },
      store: async () => ({ status: "stored", cursor: 1 }),
    };
    const failing = streamHarness({
      harness: { ...definition(scriptedModel([textReply("ok")])), persistentDirs: [broken] },
      messages: [userMessage("hi")],
      session,
      extraBody: member,
    });
    const write = failing.files.write("/persistent/user/a.md", "a");
    const result: TurnResult = await drain(failing);
    expect(result.status).toBe("failed");
    await expect(write).rejects.toMatchObject({
      code: "conflict:turn",
      message: expect.stringContaining("database is down") as unknown,
    });
  });
});

describe("memory tool view through streamHarness", () => {
  it("lists every dir root and a subfolder with sizes, folders and the read-only flag", async () => {
    const { definition } = setup();
    const views = [
      "/persistent/user",
      "/persistent/company/",
      "/persistent/uploads",
      "/persistent/user/notes",
      "/persistent",
    ];
    const model = scriptedModel([
      ...views.map((path, index) =>
        toolCallReply("memory", { command: "view", path }, `call-${index}`),
      ),
      textReply("Seen."),
    ]);
    const result = await drain(
      streamHarness({
        harness: definition(model),
        messages: [userMessage("What do you know?")],
        session,
        extraBody: member,
      }),
    );
    expect(result.status).toBe("completed");
    const outputs = toolResults(model.doStreamCalls.at(-1)!);
    expect(outputs).toHaveLength(views.length);
    const [user, company, uploads, notes, root] = outputs.map((output) =>
      output.replaceAll("\\t", "\t").replaceAll("\\n", "\n"),
    );
    expect(user).toContain("Directory /persistent/user/ (writable): 2 files, 38 B.");
    expect(user).toContain("23 B\t/persistent/user/preferences.md");
    expect(user).toContain("15 B\t/persistent/user/notes/ (1 file)");
    expect(user).toContain("15 B\t/persistent/user/notes/2025.md");
    expect(company).toContain("Directory /persistent/company/ (read-only): 2 files, 20 B.");
    expect(company).toContain("11 B\t/persistent/company/handbook.md");
    expect(company).toContain("/persistent/company/policies/ (1 file)");
    expect(uploads).toContain(
      "Directory /persistent/uploads/ (writable; saved when the host commits): 0 files, 0 B.",
    );
    expect(uploads).toContain("(empty)");
    expect(notes).toContain("Directory /persistent/user/notes/ (writable — in /persistent/user)");
    expect(notes).toContain("/persistent/user/notes/2025.md");
    expect(root).toContain("/persistent/company/ (read-only, 2 files)");
    expect(root).toContain("/persistent/user/ (writable, 2 files)");
    for (const output of outputs) expect(output).not.toMatch(/Error:/);
  });
});
