import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { HarnessForbiddenError } from "@/lib/harness";
import { createInMemoryCommitLog, InMemoryHarnessStorage } from "@/lib/harness/testing";
import {
  promptText,
  scriptedModel,
  textReply,
  toolCallReply,
  toolResults,
  userMessage,
} from "@/lib/harness/testing";
import {
  chatWithUpload,
  createFolderStorage,
  createHostHarness,
  hostStore,
  recordBuildLesson,
  retryFailedCommits,
  type HostUser,
} from "./library-host";

const alice: HostUser = { id: "alice", teamId: "blue", isTeamEditor: false };

describe("docs/library.md example: the core as a library", () => {
  it("stages an upload, commits memory after the turn, alerts on a failed commit and retries it", async () => {
    const storage = createFolderStorage();
    const commitLog = createInMemoryCommitLog();
    const alerts: string[] = [];
    const model = scriptedModel([
      toolCallReply("memory", {
        command: "create",
        path: "/persistent/user/projects.md",
        file_text: "Alice works on the billing project.\n",
      }),
      toolCallReply(
        "memory",
        { command: "create", path: "/persistent/handbook/rules.md", file_text: "x" },
        "call-2",
      ),
      textReply("I read your report and noted your project."),
    ]);
    const harness = createHostHarness({
      model,
      storage,
      harnessStorage: new InMemoryHarnessStorage(),
      commitLog,
      alerts,
    });
    // The memory folder's store fails once, as a database outage would.
    const apply = storage.apply.bind(storage);
    vi.spyOn(storage, "apply").mockImplementationOnce(async (options) => {
      if (options.folder === "users/alice") throw new Error("database unavailable");
      return apply(options);
    });

    const { result, uploadSaved } = await chatWithUpload({
      harness,
      user: alice,
      chat: { chatId: "c1" },
      messages: [userMessage("Here is my report; I work on billing.")],
      upload: {
        name: "report.md",
        content: new ReadableStream<string>({
          start(controller) {
            controller.enqueue("# Q3 report\n");
            controller.enqueue("Billing is on track.\n");
            controller.close();
          },
        }),
      },
    });

    expect(result.status).toBe("completed");
    // The staged upload was in the checkout the model saw, and commitManual() stored it.
    expect(promptText(model.doStreamCalls[0]!)).toContain(
      "/persistent/uploads: writable — 1 file, 33 B",
    );
    expect(uploadSaved).toBe(true);
    expect(storage.files("uploads/alice")).toEqual({
      "report.md": "# Q3 report\nBilling is on track.\n",
    });
    // canWrite from the host's auth: Alice is no editor, so the handbook refused the tool.
    expect(toolResults(model.doStreamCalls[2]!).join()).toMatch(/handbook is read-only/);
    expect(storage.files("teams/blue")).toEqual({});
    // The memory commit failed: kept in the log, one alert, nothing in the model's context.
    expect(result.persistence.status).toBe("failed");
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatch(
      /^failed commit of \/persistent\/user for alice: database unavailable/,
    );
    expect(storage.files("users/alice")).toEqual({});
    for (const call of model.doStreamCalls)
      expect(promptText(call)).not.toContain("database unavailable");

    const retried = await retryFailedCommits({ harness, commitLog });
    expect(retried.map((outcome) => outcome.status)).toEqual(["succeeded"]);
    expect(storage.files("users/alice")).toEqual({
      "projects.md": "Alice works on the billing project.\n",
    });
    expect(await retryFailedCommits({ harness, commitLog })).toEqual([]);
  });

  it("keeps a lesson with createMemory/updateMemory, the reason on its revision, in the next turn's prompt", async () => {
    const harnessStorage = new InMemoryHarnessStorage();
    const chat = { chatId: "c1" };
    const store = hostStore({ storage: harnessStorage, user: alice, chat });

    const overview = await recordBuildLesson(store);
    expect(overview).toBe(
      [
        "Harness v2: 0 prompt notes, 1 memories, 0 skills, 0 sub-agents (0 global, 1 local)",
        "Memories (1):",
        "  [local:project-x-build-steps] Project-X build steps (project-x/build, v2)",
      ].join("\n"),
    );
    const history = await store.history({ entryId: "project-x-build-steps" });
    expect(history.map(({ action, reason, actorId }) => [action, reason, actorId])).toEqual([
      ["create", "", "alice"],
      ["update", "Observed repeated build failures", "alice"],
    ]);
    // Alice is no editor: a global memory is refused, as the generic call refuses it.
    await expect(
      store.createMemory({ title: "Team rule", content: "x", global: true }),
    ).rejects.toSatisfy(HarnessForbiddenError.isInstance);

    const model = scriptedModel([textReply("Run `make clean` first.")]);
    const harness = createHostHarness({
      model,
      storage: createFolderStorage(),
      harnessStorage,
      commitLog: createInMemoryCommitLog(),
      alerts: [],
    });
    const { result } = await chatWithUpload({
      harness,
      user: alice,
      chat,
      messages: [userMessage("How do I build Project-X?")],
      upload: { name: "notes.md", content: "build log" },
    });
    expect(result.status).toBe("completed");
    expect(promptText(model.doStreamCalls[0]!)).toContain(
      "Run `make clean` before `make` to avoid stale artifacts.",
    );
  });

  it("is included in docs/library.md verbatim", () => {
    const root = path.resolve(import.meta.dirname, "..");
    const page = readFileSync(path.join(root, "library.md"), "utf8");
    const source = readFileSync(path.join(import.meta.dirname, "library-host.ts"), "utf8");
    expect(page).toContain("```ts\n" + source + "```\n");
  });
});
