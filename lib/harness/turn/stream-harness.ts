// Over 500 lines, knowingly: one turn from request to closed stream (checkout, tools, model
// stream, commit, status parts, errors); its steps share the turn's state and its order is the
// contract.
import {
  asSchema,
  convertToModelMessages,
  createUIMessageStream,
  experimental_streamTextLowMemory as streamTextOnce,
  stepCountIs,
  type FlexibleSchema,
  type LanguageModel,
  type Schema,
  type ToolSet,
  type UIMessage,
} from "ai";
import { HarnessConflictError, HarnessNotFoundError } from "../errors";
import {
  openTurnCheckout,
  type PersistenceErrorEvent,
  type PersistenceResult,
  type SessionFiles,
  type TurnCheckout,
} from "../persistent";
import { createStderrLogger } from "../logger";
import type { Harness, HarnessSnapshot, RecentRefinement } from "../store";
import { compactConversation, messageText } from "./compaction";
import { createDelegateTool, createHarnessTools, type GlobalWriteCheck } from "./harness-tools";
import { buildInstructions } from "./instructions";
import { createMemoryTool } from "./memory-tool";
import { createShellTool } from "./shell-tool";
import { drainTurnStream } from "./turn-stream";
import { cutUntrustedData } from "./untrusted-data";
import type {
  HarnessDefinition,
  HarnessTurn,
  InstructionsSection,
  TurnPersistenceErrorEvent,
  TurnResult,
  TurnResultStatus,
  TurnStatusData,
  TurnTraceEvent,
} from "./types";

const NOT_CONFIGURED: PersistenceResult = { status: "not-configured" };

export interface StreamHarnessOptions<TExtraBody, TSession> {
  harness: HarnessDefinition<TExtraBody, TSession>;
  /** The conversation so far, the new user message last. */
  messages: UIMessage[];
  /** The chat (the seed's session). */
  session: TSession;
  /** Per-turn host data. The app puts the server-derived Actor here — never anything a person typed. */
  extraBody: TExtraBody;
  abortSignal?: AbortSignal;
  /** Every trace event as it happens. */
  onTrace?: (event: TurnTraceEvent) => void;
  /**
   * Turns any error into the text the user sees in the chat. Default: the error's message.
   * Called once per error, with the error itself — never with the text it returned.
   */
  describeError?: (error: unknown) => string;
  /** Extra fields for the final `data-turn` part (e.g. the host's turn id). */
  turnData?: Record<string, unknown>;
  /**
   * Fires once per commit of this turn (after-turn or `commitManual()`) that ended `conflict`
   * or `failed`, after it was recorded in the commit log — the same contract as
   * `openTurnCheckout`'s, plus the turn's `extraBody` and `session`. Runs after the
   * definition's hook; errors it throws are ignored. Nothing of it reaches the model.
   */
  onPersistenceError?: (
    event: TurnPersistenceErrorEvent<TExtraBody, TSession>,
  ) => void | Promise<void>;
  /** The host's id of this turn: keys the journal and the turn's commit records. */
  turnId?: string;
}

/** A suggestion's note: the agent's words this turn (else the person's request), bounded. */
function noteOf(assistantText: readonly string[], userText: string): string {
  const said = assistantText.join("\n\n").trim();
  const note = said || (userText ? `Asked: ${userText}` : "");
  return note.length > 2000 ? `${note.slice(0, 2000)}…` : note;
}

function lastUserText(messages: readonly UIMessage[]): string {
  const last = [...messages].reverse().find((message) => message.role === "user");
  return last ? messageText(last) : "";
}

function summarizeForUi(
  status: TurnResultStatus,
  persistence: PersistenceResult,
  error?: string,
): TurnStatusData {
  const commits = persistence.status === "not-configured" ? [] : persistence.commits;
  const failed = persistence.status === "failed" ? persistence.failedCommits : [];
  const pending = failed.filter((commit) => commit.retrying === true).length;
  const held = failed.filter((commit) => commit.awaitsConfirmation === true).length;
  const notKept = failed.filter((commit) => commit.notKept === true);
  return {
    status,
    ...(error ? { error } : {}),
    persistence: {
      status: persistence.status,
      savedFiles: commits
        .filter((commit) => commit.status === "succeeded")
        .reduce((sum, commit) => sum + commit.changes.counts.total, 0),
      failedCommits: failed.length - pending - held - notKept.length,
      pendingCommits: pending,
      awaitingConfirmation: held,
      notKeptCommits: notKept.length,
      suggestedFiles: commits
        .filter((commit) => commit.status === "suggested")
        .reduce((sum, commit) => sum + commit.changes.counts.total, 0),
      ...(notKept[0]?.error ? { notKept: notKept[0].error.message } : {}),
    },
  };
}

/**
 * One turn: loads the persistent dirs (write permission decided per turn), builds the
 * instructions (base prompt, harness view within budget, dir listings, memory skill), runs the
 * model with the memory, shell, harness and delegate tools, then — only for a completed turn —
 * commits the after-turn dirs. Returns the UI stream at once; `finished` resolves with the
 * status, persistence, trace and `commitManual()`.
 *
 * Failures reach the host, not the model: a provider error fails the turn (nothing is committed)
 * and shows as an error in the stream; commit failures are on `finished.persistence` and in a
 * final `data-turn` part that the UI renders and `convertToModelMessages` drops.
 */
export function streamHarness<TExtraBody, TSession>(
  options: StreamHarnessOptions<TExtraBody, TSession>,
): HarnessTurn {
  const definition = options.harness;
  const now = definition.now ?? (() => new Date());
  const at = () => now().toISOString();
  const trace: TurnTraceEvent[] = [];
  const emit = (event: TurnTraceEvent) => {
    trace.push(event);
    options.onTrace?.(event);
  };
  const hostDescribe =
    options.describeError ??
    ((error: unknown) => (error instanceof Error ? error.message : String(error)));
  // Each error is described once, though the UI stream and the turn's result both need its text.
  // And the AI SDK hands every `error` part that passes through the UI stream back to its onError
  // as `new Error(errorText)`: the text already described, which is not described again (a host
  // that logs what it cannot classify would log the provider's own message as the server's error).
  const byError = new WeakMap<object, string>();
  const described = new Set<string>();
  const describeError = (error: unknown): string => {
    const known = typeof error === "object" && error !== null ? byError.get(error) : undefined;
    if (known !== undefined) return known;
    const text = hostDescribe(error);
    if (typeof error === "object" && error !== null) byError.set(error, text);
    described.add(text);
    return text;
  };
  const describeUnlessDescribed = (error: unknown): string =>
    error instanceof Error && described.has(error.message) ? error.message : describeError(error);
  const context = { extraBody: options.extraBody, session: options.session };
  const started = Date.now();

  let turnCheckout: TurnCheckout | null = null;
  let instructions: { text: string; sections: InstructionsSection[] } = { text: "", sections: [] };
  let compaction: TurnResult["compaction"];
  let usage: TurnResult["usage"];
  let resolveFinished!: (result: TurnResult) => void;
  const finished = new Promise<TurnResult>((resolve) => (resolveFinished = resolve));
  let outcome: { status: TurnResultStatus; error?: string; persistence: PersistenceResult } | null =
    null;

  const commitManual = async (): Promise<PersistenceResult> => {
    if (!turnCheckout) return NOT_CONFIGURED;
    return turnCheckout.commitManual();
  };

  const onPersistenceError =
    definition.onPersistenceError || options.onPersistenceError
      ? async (event: PersistenceErrorEvent) => {
          const withContext = { ...event, ...context };
          for (const hook of [definition.onPersistenceError, options.onPersistenceError]) {
            try {
              await hook?.(withContext);
            } catch (error) {
              // The hooks are for the host's own alerting; one failing changes nothing for the
              // turn, but the host hears of it.
              (definition.logger ?? createStderrLogger()).error(
                { err: error, turnId: options.turnId, commitStatus: event.commit.status },
                "a persistence-error hook failed",
              );
            }
          }
        }
      : undefined;

  // Host-staged files. The checkout exists only once the dirs have loaded: earlier calls wait
  // for it, and the turn waits for those before it builds the instructions, so the model sees
  // the files. Later writes are ordered against the commits by the checkout itself.
  let dirsLoaded: TurnCheckout | null | undefined;
  let settleDirs!: (error?: unknown) => void;
  const dirsReady = new Promise<TurnCheckout | null>((resolve, reject) => {
    settleDirs = (error) => (error === undefined ? resolve(turnCheckout) : reject(error as Error));
  });
  dirsReady.catch(() => undefined);
  const earlyHostChanges = new Set<Promise<unknown>>();
  let modelStarted = false;
  const withFiles = <T>(operate: (files: SessionFiles) => Promise<T>): Promise<T> => {
    const need = (loaded: TurnCheckout | null): Promise<T> => {
      if (!loaded) {
        return Promise.reject(
          new HarnessNotFoundError({
            surface: "dir",
            message: "This harness has no persistent dirs: there is nowhere to stage files.",
          }),
        );
      }
      return operate(loaded.files);
    };
    if (dirsLoaded !== undefined) return need(dirsLoaded);
    const pending = dirsReady.then(need, (error: unknown) => {
      throw new HarnessConflictError({
        surface: "turn",
        message: `The turn failed before its persistent dirs loaded, so nothing was written: ${
          error instanceof Error ? error.message : String(error)
        }`,
        cause: error,
      });
    });
    if (!modelStarted) {
      earlyHostChanges.add(pending);
      void pending.finally(() => earlyHostChanges.delete(pending)).catch(() => undefined);
    }
    return pending;
  };
  const files: SessionFiles = {
    write: (path, content) => withFiles((checkoutFiles) => checkoutFiles.write(path, content)),
    read: (path) => withFiles((checkoutFiles) => checkoutFiles.read(path)),
    delete: (path) => withFiles((checkoutFiles) => checkoutFiles.delete(path)),
    list: (path) => withFiles((checkoutFiles) => checkoutFiles.list(path)),
  };

  const stream = createUIMessageStream({
    originalMessages: options.messages,
    onError: describeUnlessDescribed,
    execute: async ({ writer }) => {
      let status: TurnResultStatus = "completed";
      let errorMessage: string | undefined;
      let persistence: PersistenceResult = NOT_CONFIGURED;
      const assistantText: string[] = [];
      try {
        emit({ type: "turn.started", at: at(), messageCount: options.messages.length });
        const model = await definition.model(context);
        const dirs = definition.persistentDirs ?? [];
        if (dirs.length > 0) {
          if (!definition.commitLog)
            throw new Error("A harness with persistent dirs needs a commitLog.");
          turnCheckout = await openTurnCheckout({
            dirs,
            extraBody: options.extraBody,
            session: options.session,
            commitLog: definition.commitLog,
            clock: { now },
            onTrace: emit,
            onPersistenceError,
            abortSignal: options.abortSignal,
            turnId: options.turnId,
            journal: options.turnId === undefined ? undefined : definition.journal,
            spool: definition.spool,
            retryPolicy: definition.retryPolicy,
          });
        }
        dirsLoaded = turnCheckout;
        settleDirs();
        const checkout = turnCheckout?.checkout ?? null;
        const store: Harness | null = definition.store ? await definition.store(context) : null;
        const [snapshot, recentRefinements, tokenBudget] = await Promise.all([
          store ? store.snapshot() : Promise.resolve<HarnessSnapshot | null>(null),
          definition.recentRefinements
            ? definition.recentRefinements(context)
            : Promise.resolve<RecentRefinement[]>([]),
          typeof definition.tokenBudget === "function"
            ? definition.tokenBudget(context)
            : Promise.resolve(definition.tokenBudget ?? 4000),
        ]);

        let messages = options.messages;
        if (definition.compaction) {
          const compacted = await compactConversation({
            messages,
            model,
            compaction: definition.compaction,
            abortSignal: options.abortSignal,
          });
          if (compacted) {
            messages = compacted.messages;
            compaction = {
              summary: compacted.summary,
              removedMessageIds: compacted.removed.map((message) => message.id),
            };
            emit({
              type: "compaction",
              at: at(),
              removedMessages: compacted.removed.length,
              tokensBefore: compacted.tokensBefore,
              tokensAfter: compacted.tokensAfter,
              summary: compacted.summary,
            });
          }
        }

        // Host writes made before the model starts are part of what it sees.
        modelStarted = true;
        await Promise.allSettled([...earlyHostChanges]);
        instructions = await buildInstructions({
          base: definition.instructions,
          snapshot,
          tokenBudget,
          query: lastUserText(options.messages),
          recentRefinements,
          dirs: dirs as never,
          checkout,
          otherTools: definition.tools !== undefined,
        });
        emit({
          type: "instructions.built",
          at: at(),
          sections: instructions.sections,
          totalTokens: instructions.sections.reduce((sum, section) => sum + section.tokens, 0),
        });

        const tools: ToolSet = {};
        if (checkout) {
          tools.memory = createMemoryTool({ checkout, providerTool: definition.memoryTool });
          tools.bash = createShellTool({ checkout, limits: definition.shell });
        }
        if (store) {
          const heldTurn = turnCheckout as TurnCheckout | null;
          Object.assign(
            tools,
            createHarnessTools({
              harness: store,
              checkGlobalWrite: heldTurn ? privateTextCheck(heldTurn) : undefined,
              ...(definition.suggestGlobalEntry
                ? {
                    suggestGlobalEntry: (proposal) =>
                      definition.suggestGlobalEntry!({
                        ...context,
                        proposal,
                        ...(options.turnId === undefined ? {} : { turnId: options.turnId }),
                      }),
                  }
                : {}),
            }),
          );
          tools.delegate = createDelegateTool({
            harness: store,
            tools: () => tools,
            model: ({ model: name }): LanguageModel =>
              (name && definition.subagentModel?.({ ...context, model: name })) || model,
            onDelegate: (event) =>
              emit({ type: "delegate", at: at(), subagent: event.subagent, tools: event.tools }),
          });
        }
        Object.assign(tools, definition.tools?.({ ...context, harness: store }) ?? {});
        const traced = traceTools(
          turnCheckout ? journalTools(tools, turnCheckout) : tools,
          emit,
          at,
          definition.maxToolOutputChars ?? DEFAULT_MAX_TOOL_OUTPUT_CHARS,
        );

        let streamError: unknown = null;
        let step = 0;
        // One consumer (the UI stream below): the single-consumer variant does not record the
        // stream for replay, and `totalUsage` then does not tee and drain a second copy of it.
        const result = streamTextOnce({
          model,
          instructions: instructions.text,
          messages: await convertToModelMessages(messages),
          tools: traced,
          stopWhen: stepCountIs(definition.maxSteps ?? 12),
          maxOutputTokens: definition.maxOutputTokens,
          abortSignal: options.abortSignal,
          ...(definition.telemetry && { experimental_telemetry: definition.telemetry }),
          onError: ({ error }) => {
            streamError = error;
          },
          onStepFinish: (stepResult) => {
            if (stepResult.text) assistantText.push(stepResult.text);
            emit({
              type: "model.step",
              at: at(),
              step: step++,
              finishReason: stepResult.finishReason,
              inputTokens: stepResult.usage.inputTokens,
              outputTokens: stepResult.usage.outputTokens,
            });
          },
        });
        writer.merge(result.toUIMessageStream({ onError: describeError }));
        try {
          const totals = await result.totalUsage;
          usage = { inputTokens: totals.inputTokens, outputTokens: totals.outputTokens };
        } catch (error) {
          streamError ??= error;
        }
        if (options.abortSignal?.aborted) status = "aborted";
        else if (streamError) {
          status = "failed";
          errorMessage = describeError(streamError);
          emit({ type: "model.error", at: at(), message: errorMessage });
        }
      } catch (error) {
        if (dirsLoaded === undefined) settleDirs(error);
        status = options.abortSignal?.aborted ? "aborted" : "failed";
        errorMessage = describeError(error);
        emit({ type: "model.error", at: at(), message: errorMessage });
        writer.write({ type: "error", errorText: errorMessage });
      }
      if (turnCheckout)
        persistence = await turnCheckout.finishTurn({
          status,
          // What the agent said this turn: the "why" of a change kept as a suggestion.
          note: noteOf(assistantText, lastUserText(options.messages)),
        });
      emit({ type: "turn.finished", at: at(), status, durationMs: Date.now() - started });
      outcome = { status, error: errorMessage, persistence };
      writer.write({
        type: "data-turn",
        data: { ...summarizeForUi(status, persistence, errorMessage), ...options.turnData },
      });
    },
    onEnd: ({ responseMessage }) => {
      const final = outcome ?? {
        status: "failed" as const,
        error: "The turn ended early.",
        persistence: NOT_CONFIGURED,
      };
      resolveFinished({
        status: final.status,
        ...(final.error ? { error: { message: final.error } } : {}),
        persistence: final.persistence,
        trace,
        instructions,
        ...(compaction ? { compaction } : {}),
        responseMessage,
        usage,
        files,
        commitManual,
      });
    },
  });

  // The turn runs to its end (and commits) even if nobody reads the stream or the reader goes
  // away: it is drained here from the start, and handed to the host as it goes (turn-stream.ts).
  const outlet = drainTurnStream(stream);
  return {
    toUIMessageStream: () => outlet.toUIMessageStream(),
    toUIMessageStreamResponse: (init, responseOptions) =>
      outlet.toUIMessageStreamResponse(init, responseOptions),
    files,
    finished,
  };
}

/**
 * The turn's check of a global entry (docs/decisions/0031): text of the person's private memory
 * that no shared dir holds is not written to the workspace's global entries by the agent. There
 * is no confirm step for entries; the model is told to leave it to the person.
 */
function privateTextCheck(turn: TurnCheckout): GlobalWriteCheck {
  return async ({ text, previous }) => {
    const [copy] = await turn.findPrivateCopies({
      written: [{ path: "the global entry", content: text }],
      already: [previous],
    });
    if (!copy) return null;
    return (
      `Not written: this global entry would copy text from the person's private memory (${copy.source}) into the workspace's global entries, which everyone in the workspace reads. ` +
      "Cairn does not move private memory into shared places on its own. Tell the person: if they want it shared, they can add it themselves on the Harness page; or keep it as a local entry (without global)."
    );
  };
}

/** Characters of one tool result kept by default (`HarnessDefinition.maxToolOutputChars`). */
export const DEFAULT_MAX_TOOL_OUTPUT_CHARS = 50_000;

/**
 * Bounds one tool result: a string longer than `limit` is cut with a marker; any other value
 * whose JSON is longer is replaced by its cut JSON text. Small results pass through unchanged.
 */
export function capToolOutput(output: unknown, limit: number): unknown {
  const marker = (shown: number, total: number) =>
    `\n[… tool output truncated: ${shown.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} characters shown]`;
  if (typeof output === "string") {
    if (output.length <= limit) return output;
    // Data stays inside its wrapper: a cut file never leaves the closing tag behind.
    return (
      cutUntrustedData(output, limit, marker(limit, output.length)) ??
      `${output.slice(0, limit)}${marker(limit, output.length)}`
    );
  }
  if (output === undefined || output === null || typeof output !== "object") return output;
  let json: string;
  try {
    json = JSON.stringify(output);
  } catch {
    return output;
  }
  return json.length > limit ? `${json.slice(0, limit)}${marker(limit, json.length)}` : output;
}

function isAbort(error: unknown, signal: AbortSignal | undefined): boolean {
  return (
    signal?.aborted === true ||
    (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError"))
  );
}

/**
 * Wraps every tool's `execute` so the turn's changes are journaled before the result reaches
 * the model: what a tool reports as written survives a crash. When nothing would keep the
 * change, the tool's result says so instead of claiming success.
 */
function journalTools(tools: ToolSet, turn: TurnCheckout): ToolSet {
  const wrapped: ToolSet = {};
  for (const [toolName, definition] of Object.entries(tools)) {
    const execute = definition.execute;
    if (!execute) {
      wrapped[toolName] = definition;
      continue;
    }
    wrapped[toolName] = {
      ...definition,
      execute: async (
        input: unknown,
        executionOptions: Parameters<NonNullable<typeof execute>>[1],
      ) => {
        const output: unknown = await execute(input as never, executionOptions);
        try {
          await turn.checkpoint();
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          return `Error: ${message} Tell the user this change may be lost if the server stops before the turn ends.`;
        }
        return output;
      },
    } as typeof definition;
  }
  return wrapped;
}

/** Schemas converted once per process, keyed by the (module-level) schema object. */
const inputSchemas = new WeakMap<object, Schema<unknown>>();

/**
 * The AI SDK converts a tool's zod input schema to JSON Schema at every step of every turn
 * (`asSchema` wraps it afresh each time): ~10% of a chat turn's server CPU. Its `Schema` wrapper
 * computes the JSON Schema once and keeps it, so one wrapper per schema object, kept for the
 * process, converts each schema once. A schema object is immutable (zod builds new ones), so
 * the cached JSON Schema stays its own; tools that build their schema per call still work, they
 * just convert it each time (and the WeakMap lets it go).
 */
export function cachedInputSchema<T>(schema: FlexibleSchema<T>): FlexibleSchema<T> {
  if (schema === null || typeof schema !== "object") return schema;
  let wrapped = inputSchemas.get(schema);
  if (!wrapped) {
    wrapped = asSchema(schema) as Schema<unknown>;
    inputSchemas.set(schema, wrapped);
  }
  return wrapped as FlexibleSchema<T>;
}

/**
 * Wraps every tool's `execute` to bound its result (`maxOutputChars`), record the call, result
 * and duration in the trace, and turn an exception into a result that names the failed tool —
 * so one tool's bug reads as that tool's failure, not as the model provider's, and the model
 * can go on. An abort (the stop button) is rethrown: the turn ends as aborted.
 */
function traceTools(
  tools: ToolSet,
  emit: (event: TurnTraceEvent) => void,
  at: () => string,
  maxOutputChars: number,
): ToolSet {
  const traced: ToolSet = {};
  for (const [toolName, definition] of Object.entries(tools)) {
    const execute = definition.execute;
    if (!execute) {
      traced[toolName] = definition;
      continue;
    }
    traced[toolName] = {
      ...definition,
      inputSchema: cachedInputSchema(definition.inputSchema),
      execute: async (
        input: unknown,
        executionOptions: Parameters<NonNullable<typeof execute>>[1],
      ) => {
        emit({
          type: "tool.call",
          at: at(),
          toolCallId: executionOptions.toolCallId,
          toolName,
          input,
        });
        const startedAt = Date.now();
        let output: unknown;
        try {
          output = capToolOutput(await execute(input as never, executionOptions), maxOutputChars);
        } catch (error) {
          if (isAbort(error, executionOptions.abortSignal)) {
            emit({
              type: "tool.result",
              at: at(),
              toolCallId: executionOptions.toolCallId,
              toolName,
              output: "The tool call was stopped.",
              isError: true,
              durationMs: Date.now() - startedAt,
            });
            throw error;
          }
          const detail = error instanceof Error ? error.message : String(error);
          output = capToolOutput(
            `Error: The ${toolName} tool failed: ${detail || "unknown error"}`,
            Math.min(maxOutputChars, 2_000),
          );
        }
        emit({
          type: "tool.result",
          at: at(),
          toolCallId: executionOptions.toolCallId,
          toolName,
          output,
          isError: typeof output === "string" && output.startsWith("Error:"),
          durationMs: Date.now() - startedAt,
        });
        return output;
      },
    } as typeof definition;
  }
  return traced;
}
