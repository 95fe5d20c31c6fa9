// Over 500 lines, knowingly: one MCP server definition, one tool or resource after another, each
// short; splitting by tool would scatter the shared actor and harness setup.
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

import { accessTokenVia, type AccessTokenIdentity } from "@/lib/access-tokens";
import { toolErrorText } from "@/lib/app-error";
import {
  ENTRY_KINDS,
  canWriteGlobal,
  createEntryOfKind,
  createHarness,
  formatHarnessStateWithTokens,
  memoryToolInputSchema,
  openTurnCheckout,
  runMemoryCommand,
  updateEntryOfKind,
  type Entry,
  type EntryKind,
  type GlobalEntryProposal,
  type Harness,
  type HarnessStoragePort,
  type PersistenceResult,
  type RecentRefinement,
} from "@/lib/harness";
import type { AppExtraBody, PersistentDirsService } from "@/lib/workspace-dirs";
import {
  SEARCH_TOOL_DESCRIPTION,
  formatSearchResult,
  kindOfScope,
  searchPassages,
  searchToolInput,
} from "@/lib/search";
import { suggestGlobalEntryChange } from "@/lib/review";
import { toDate, type Sql, type SqlExecutor } from "@/lib/sql-storage/sql";
import { getWorkspaceSettings } from "@/lib/workspace-settings";
import { FEEDBACK_TAGS, rateTurn, type FeedbackRefinementRequester } from "@/lib/feedback";

/** The MCP server's name in `initialize`; clients show it. */
export const CAIRN_MCP_SERVER_NAME = "cairn";

/** Options for `createCairnMcpServer`. */
export interface CairnMcpServerOptions {
  /** The database (the SQL layer's client). */
  sql: Sql;
  /** Who calls: the token's owner with the role read from the membership for this request. */
  identity: AccessTokenIdentity;
  /** The app's persistent dirs and commit log (`getPersistentDirs()`). */
  dirs: PersistentDirsService;
  /** The harness storage (`harnessStorageFor()`). */
  harnessStorage: HarnessStoragePort;
  /**
   * Queues a global refinement from a conversation excerpt; absent: no `refine_request` tool.
   * Returns the refinement's id and status.
   */
  requestRefinement?: (options: {
    identity: AccessTokenIdentity;
    excerpt: string;
    instructions?: string;
  }) => Promise<{ id: string; status: string }>;
  /**
   * Starts a feedback-triggered review when the `report_outcome` tool's thumbs-down reach the
   * workspace's threshold (`requestFeedbackRefinement` of `lib/refinement-runs`); absent: ratings are
   * stored and counted, and the trigger waits for the next rating in the app.
   */
  requestFeedbackRefinement?: FeedbackRefinementRequester;
  /** Default: "0.1.0". */
  version?: string;
}

const kindSchema = z
  .enum(ENTRY_KINDS)
  .describe("prompt (instruction note) | memory (fact, preference, lesson) | skill | subagent");

/**
 * The `memory` tool's input as a flat object (MCP clients expect `type: "object"` at the top);
 * checked against the chat's own discriminated schema before it runs.
 */
const memoryInputShape = {
  command: z
    .enum(["view", "create", "str_replace", "insert", "delete", "rename"])
    .describe("What to do"),
  path: z
    .string()
    .optional()
    .describe("An absolute path under /persistent, e.g. /persistent/user/notes.md"),
  view_range: z
    .tuple([z.number().int(), z.number().int()])
    .optional()
    .describe("view: lines [start, end] (1-based, end -1 = to the end)"),
  file_text: z.string().optional().describe("create: the whole file"),
  old_str: z.string().optional().describe("str_replace: the exact, unique text to replace"),
  new_str: z.string().optional().describe("str_replace: the replacement"),
  insert_line: z.number().int().optional().describe("insert: after this line (0 = top)"),
  insert_text: z.string().optional().describe("insert: the text"),
  old_path: z.string().optional().describe("rename: from"),
  new_path: z.string().optional().describe("rename: to"),
};

const entryFields = {
  title: z.string().optional().describe("prompt/memory: a short title (skills: defaults to name)"),
  content: z.string().optional().describe("the text; a skill's body, a sub-agent's instructions"),
  path: z.string().optional().describe("a grouping such as project-x/build (default general)"),
  pinned: z.boolean().optional().describe("pinned entries come first in the view"),
  name: z.string().optional().describe("skill/subagent: its name"),
  description: z.string().optional().describe("skill/subagent: one line saying when to use it"),
  tools: z.array(z.string()).optional().describe("subagent: names of the tools it may use"),
  model: z.string().optional().describe("subagent: optional model id"),
  reason: z.string().max(500).optional().describe("why; recorded on the revision"),
};

function text(value: string): CallToolResult {
  return { content: [{ type: "text", text: value }] };
}

function toolError(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/**
 * Family and input errors become tool errors the client can act on, through the app's one
 * mapping (`toolErrorText`); anything else is a server fault.
 */
function harnessErrorResult(error: unknown): CallToolResult {
  const text = toolErrorText(error);
  if (text === null) throw error;
  return toolError(text);
}

/** A tool handler whose core and input errors come back as tool errors (`harnessErrorResult`). */
function caught<I>(
  handler: (input: I) => Promise<CallToolResult>,
): (input: I) => Promise<CallToolResult> {
  return async (input) => {
    try {
      return await handler(input);
    } catch (error) {
      return harnessErrorResult(error);
    }
  };
}

function entryJson(entry: Entry) {
  return {
    kind: entry.kind,
    id: entry.id,
    title: entry.title,
    path: entry.path,
    version: entry.version,
    pinned: entry.pinned,
    metadata: entry.metadata,
    content: entry.content,
    source: entry.source,
    updatedAt: entry.updatedAt,
  };
}

/** A global entry, as the read and write tools return it. */
function entryResult(entry: Entry): CallToolResult {
  return text(JSON.stringify(entryJson(entry)));
}

/** What a create or update of any kind shares: a global entry, its id, path, pin and reason. */
function sharedEntryFields(input: {
  id?: string;
  path?: string;
  pinned?: boolean;
  reason?: string;
}) {
  return {
    global: true as const,
    id: input.id,
    path: input.path,
    pinned: input.pinned,
    reason: input.reason,
  };
}

function describePersistence(persistence: PersistenceResult): { ok: boolean; message: string } {
  if (persistence.status === "not-configured") return { ok: true, message: "" };
  const notes: string[] = [];
  let ok = true;
  for (const commit of persistence.commits) {
    if (commit.status === "succeeded") {
      notes.push(
        `Saved ${commit.harnessDir} (version ${String(commit.cursor)})${commit.merged ? ", merged with a concurrent change" : ""}.`,
      );
    } else if (commit.status === "suggested") {
      notes.push(
        `Suggested for review: your role may not change ${commit.harnessDir}, so the change was kept as suggestion ${commit.suggestionId ?? ""} for an editor or admin to approve; nothing was applied yet.`,
      );
    } else if (commit.notKept) {
      ok = false;
      // Refused, and past the bound on Commit failures: nothing is kept, and the client must hear it.
      notes.push(`Not saved to ${commit.harnessDir}, and not kept: ${commit.error?.message ?? ""}`);
    } else if (commit.status === "conflict" || commit.status === "failed") {
      ok = false;
      notes.push(
        `Not saved to ${commit.harnessDir} yet: ${commit.error?.message ?? commit.status}. ` +
          `Nothing is lost: the change is kept${commit.commitId ? ` as commit record ${commit.commitId}` : ""} ` +
          "and can be retried or resolved on the Commit failures page (/files/failures).",
      );
    }
  }
  return { ok, message: notes.join(" ") };
}

/**
 * Runs the handlers it wraps one after another, in call order. A JSON-RPC batch's calls are
 * dispatched together; the request holds one of the person's concurrent-turn slots, so its turn
 * calls must not run side by side (decision 0029).
 */
function oneAtATime() {
  let queue: Promise<unknown> = Promise.resolve();
  return <I>(handler: (input: I) => Promise<CallToolResult>) =>
    (input: I): Promise<CallToolResult> => {
      const run = queue.then(() => handler(input));
      queue = run.catch(() => {});
      return run;
    };
}

/**
 * An MCP server for one request of one token: the `memory` tool over the person's persistent
 * dirs (each write a turn of its own through the same commit path as a chat turn), the global
 * harness tools with the same role rules as the chat agent's, and memory files and harness
 * entries as resources. The turn tools (`TURN_TOOL_NAMES`) run one at a time within the request.
 * Stateless: build one per request (see docs/mcp.md).
 */
export function createCairnMcpServer(options: CairnMcpServerOptions): McpServer {
  const { sql, identity, dirs } = options;
  const { actor } = identity;
  const via = accessTokenVia(identity.token);
  const server = new McpServer(
    { name: CAIRN_MCP_SERVER_NAME, version: options.version ?? "0.1.0" },
    {
      instructions:
        "Cairn keeps durable, versioned memory. Use `memory` for files under /persistent (your own " +
        "memory in /persistent/user; company knowledge in /persistent/company, writable by editors " +
        "and admins (a member's change there is kept as a suggestion for review); /persistent/docs read-only), `harness_view` for the workspace's ranked knowledge, and `search` to find passages by words " +
        "(then `memory` view with view_range on the lines it names).",
    },
  );
  const harness = (): Harness =>
    createHarness({ storage: options.harnessStorage, actor, chatId: null, via, source: "agent" });
  const oneTurnAtATime = oneAtATime();

  server.registerTool(
    "memory",
    {
      title: "Memory files",
      description:
        "View and edit files in your persistent directories under /persistent: /persistent/user (yours), " +
        "/persistent/company (the workspace's; writable by editors and admins), /persistent/docs (read-only). " +
        "Commands: view (a directory listing or a file with line numbers, optional view_range [start, end]), " +
        "create (write a whole file), str_replace (replace one exact, unique occurrence), insert (after " +
        "insert_line; 0 = top), delete (a file or folder), rename. Each write is saved at once; a concurrent " +
        "change to the same file is merged, or kept as a conflict — never lost.",
      inputSchema: memoryInputShape,
      annotations: { destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    oneTurnAtATime(async (input) => {
      const parsed = memoryToolInputSchema.safeParse(input);
      if (!parsed.success) {
        return toolError(
          `invalid input for ${input.command}: ${parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`).join("; ")}`,
        );
      }
      const extraBody: AppExtraBody = { actor, source: "mcp", via };
      // One call, one turn: load every dir (write permission decided now, from the role read for
      // this request), run the command on the isolated checkout, commit through the same path
      // as a chat turn (compare-and-swap, three-way merge, commit log).
      const turn = await openTurnCheckout({
        dirs: dirs.dirs,
        extraBody,
        session: null,
        commitLog: dirs.commitLog,
      });
      const output = await runMemoryCommand(turn.checkout, parsed.data);
      if (output.startsWith("Error: ")) {
        await turn.finishTurn({ status: "failed" });
        return toolError(output.slice("Error: ".length));
      }
      if (parsed.data.command === "view") {
        await turn.finishTurn({ status: "aborted" });
        return text(output);
      }
      const persistence = await turn.finishTurn({ status: "completed" });
      const outcome = describePersistence(persistence);
      const message = [output, outcome.message].filter(Boolean).join(" ");
      return outcome.ok ? text(message) : toolError(message);
    }),
  );

  server.registerTool(
    "search",
    {
      title: "Search",
      description: SEARCH_TOOL_DESCRIPTION,
      inputSchema: searchToolInput.shape,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    caught(async (input) => {
      // The token's person, their role read for this request: their own memory and chats, the
      // workspace's knowledge, docs and global entries — nobody else's.
      const hits = await searchPassages(sql, {
        actor,
        query: input.query,
        kinds: input.scope?.map(kindOfScope),
        limit: input.limit,
      });
      return text(formatSearchResult(input.query, hits));
    }),
  );

  server.registerTool(
    "harness_view",
    {
      title: "Harness view",
      description:
        "The workspace's global harness entries as a chat turn sees them: ranked for `query` (pinned first, " +
        "then relevance, then recency) and cut to `token_budget` tokens (o200k), at most the workspace's " +
        "budget. Put it in your context to use what the team has learned.",
      inputSchema: {
        query: z.string().max(4000).optional().describe("what you are working on"),
        token_budget: z
          .number()
          .int()
          .positive()
          .optional()
          .describe("most tokens of the view; default and maximum: the workspace's budget"),
      },
      annotations: { readOnlyHint: true },
    },
    caught(async ({ query, token_budget }) => {
      const settings = await getWorkspaceSettings(sql, actor.workspaceId);
      const tokenBudget = Math.min(token_budget ?? settings.tokenBudget, settings.tokenBudget);
      const [snapshot, recentRefinements] = await Promise.all([
        harness().snapshot(),
        recentGlobalRefinements(sql, actor.workspaceId),
      ]);
      const view = formatHarnessStateWithTokens({
        state: snapshot,
        tokenBudget,
        query: query ?? "",
        recentRefinements,
      });
      return {
        content: [
          { type: "text", text: view.text || "(the harness is empty)" },
          {
            type: "text",
            text: JSON.stringify({
              tokens: view.tokens,
              tokenBudget,
              harnessVersion: snapshot.harnessVersion,
            }),
          },
        ],
      };
    }),
  );

  server.registerTool(
    "harness_search",
    {
      title: "Search harness entries",
      description:
        "Global harness entries matching a case-insensitive text (title or content), a kind and a path " +
        "prefix; newest changes first, paginated with `cursor`.",
      inputSchema: {
        text: z.string().max(500).optional(),
        kind: kindSchema.optional(),
        path_prefix: z.string().max(500).optional(),
        limit: z.number().int().min(1).max(100).optional().describe("default 20"),
        cursor: z.string().optional().describe("nextCursor of the previous page"),
      },
      annotations: { readOnlyHint: true },
    },
    caught(async (input) => {
      const page = await harness().listEntries({
        scope: "global",
        text: input.text,
        kind: input.kind,
        pathPrefix: input.path_prefix,
        limit: input.limit ?? 20,
        cursor: input.cursor ?? null,
      });
      return text(
        JSON.stringify({
          entries: page.items.map((entry) => ({
            ...entryJson(entry),
            content: entry.content.length > 280 ? `${entry.content.slice(0, 280)}…` : entry.content,
          })),
          nextCursor: page.nextCursor,
        }),
      );
    }),
  );

  server.registerTool(
    "harness_get",
    {
      title: "Get a harness entry",
      description: "One global harness entry in full, with its version (name it when you update).",
      inputSchema: { kind: kindSchema, id: z.string() },
      annotations: { readOnlyHint: true },
    },
    caught(async ({ kind, id }) => {
      const entry = await harness().getEntry({ kind, id, scope: "global" });
      return entry ? entryResult(entry) : toolError(`No global ${kind} ${id}.`);
    }),
  );

  /** A tool handler for editors and admins only: anyone else gets a tool error and nothing runs. */
  const editorOnly =
    <I>(handler: (input: I) => Promise<CallToolResult>) =>
    async (input: I): Promise<CallToolResult> =>
      canWriteGlobal(actor)
        ? oneTurnAtATime(caught(handler))(input)
        : toolError(
            `forbidden:entry: your role in this workspace is ${actor.role}; only editors and admins may change global harness entries.`,
          );

  /**
   * A tool handler for editors and admins. Anyone else's change is not refused and not applied:
   * it is kept as a suggestion for review (docs/review.md), and the tool says so.
   */
  const editorOrSuggest =
    <I>(
      proposalOf: (input: I) => GlobalEntryProposal,
      handler: (input: I) => Promise<CallToolResult>,
    ) =>
    async (input: I): Promise<CallToolResult> =>
      canWriteGlobal(actor)
        ? oneTurnAtATime(caught(handler))(input)
        : oneTurnAtATime(
            caught(async (value: I) => {
              const proposal = proposalOf(value);
              const { id } = await suggestGlobalEntryChange({
                sql,
                harnessStorage: options.harnessStorage,
                actor,
                proposal,
                source: "mcp",
                via,
              });
              return text(
                `Suggested for review (suggestion ${id}): your role in this workspace is ${actor.role}, so the ${proposal.action} of global ${proposal.kind}${proposal.id ? ` ${proposal.id}` : ""} was sent to an editor or admin for approval; it is not applied until then.`,
              );
            }),
          )(input);

  server.registerTool(
    "harness_create",
    {
      title: "Create a harness entry",
      description:
        "Create a global harness entry (editors and admins): a prompt note, memory, skill (content = body, " +
        "name and description required) or sub-agent (content = instructions, name, description, tools).",
      inputSchema: { kind: kindSchema, id: z.string().optional(), ...entryFields },
    },
    editorOrSuggest(
      ({ pinned: _pinned, ...input }) => ({ action: "create", ...input }),
      async (input) =>
        entryResult(await createEntryOfKind(harness(), sharedEntryFields(input), input)),
    ),
  );

  server.registerTool(
    "harness_update",
    {
      title: "Update a harness entry",
      description:
        "Update a global harness entry (editors and admins). Name the version you read " +
        "(expected_version); if someone changed it since, nothing is written and you get a conflict.",
      inputSchema: {
        kind: kindSchema,
        id: z.string(),
        expected_version: z.number().int().positive(),
        ...entryFields,
      },
    },
    editorOrSuggest(
      ({ expected_version, pinned: _pinned, ...input }) => ({
        action: "update",
        expectedVersion: expected_version,
        ...input,
      }),
      async (input) => {
        const common = {
          ...sharedEntryFields(input),
          id: input.id,
          expectedVersion: input.expected_version,
          title: input.title,
        };
        return entryResult(await updateEntryOfKind(harness(), common, input));
      },
    ),
  );

  server.registerTool(
    "harness_delete",
    {
      title: "Delete a harness entry",
      description:
        "Delete a global harness entry (editors and admins); its history is kept and it can be restored " +
        "in the app. Name the version you read (expected_version).",
      inputSchema: {
        kind: kindSchema,
        id: z.string(),
        expected_version: z.number().int().positive(),
        reason: z.string().max(500).optional(),
      },
      annotations: { destructiveHint: true },
    },
    editorOrSuggest(
      ({ expected_version, ...input }) => ({
        action: "delete",
        expectedVersion: expected_version,
        ...input,
      }),
      async (input) => {
        const revision = await harness().deleteEntry({
          kind: input.kind as EntryKind,
          id: input.id,
          expectedVersion: input.expected_version,
          reason: input.reason,
          global: true,
        });
        return text(
          `Deleted global ${input.kind} ${input.id} (harness version ${revision.harnessVersion}).`,
        );
      },
    ),
  );

  const requestRefinement = options.requestRefinement;
  if (requestRefinement) {
    server.registerTool(
      "refine_request",
      {
        title: "Ask for a refinement",
        description:
          "Ask Cairn to refine the workspace's global harness from a short excerpt of your conversation " +
          "(what was learned, corrected or decided). Queued like any other refinement; editors and admins only.",
        inputSchema: {
          excerpt: z
            .string()
            .min(1)
            .max(20_000)
            .describe("the conversation excerpt, as plain text"),
          instructions: z.string().max(2000).optional().describe("what to focus on"),
        },
      },
      editorOnly(async (input) => {
        const result = await requestRefinement({ identity, ...input });
        return text(`Refinement ${result.id}: ${result.status}. See /refinements in Cairn.`);
      }),
    );
  }

  server.registerTool(
    "report_outcome",
    {
      title: "Report how an answer landed",
      description:
        "Rate one of Cairn's chat answers by its turn id (the `turnId` of the turn's status part): good or bad, " +
        "with an optional comment and reasons on a bad one. Only answers in your own chats; a second report " +
        "replaces the first, rating null takes it back. Counted per harness version on /refinements/outcomes.",
      inputSchema: {
        turn_id: z.string().min(1).max(200),
        rating: z.enum(["good", "bad"]).nullable(),
        comment: z.string().max(2000).optional(),
        tags: z.array(z.enum(FEEDBACK_TAGS)).optional().describe(FEEDBACK_TAGS.join(" | ")),
      },
      annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (input) => {
      const result = await rateTurn({
        actor,
        input: {
          turnId: input.turn_id,
          rating: input.rating,
          comment: input.comment,
          tags: input.tags,
        },
        source: "mcp",
        settings: await getWorkspaceSettings(sql, actor.workspaceId),
        requestRefinement: options.requestFeedbackRefinement ?? (async () => null),
        sql,
      });
      if (result.status === "not_found")
        return toolError(`No answer with turn id ${input.turn_id} in your chats.`);
      if (result.status === "cleared") return text(`Rating of turn ${input.turn_id} removed.`);
      const { outcome, refinementId } = result;
      return text(
        `Recorded: turn ${outcome.turnId} rated ${outcome.rating} (harness version ${outcome.harnessVersion ?? "unknown"}).` +
          (refinementId
            ? ` A review started from the thumbs-down: refinement ${refinementId}.`
            : ""),
      );
    },
  );

  // Resources: memory files and global harness entries, for clients that browse.
  server.registerResource(
    "memory-file",
    new ResourceTemplate("cairn://files/{+path}", {
      list: async () => {
        const resources = [];
        for (const dir of dirs.listVisibleDirs({ actor })) {
          const { files } = await dirs.listFiles({ actor, harnessDir: dir.harnessDir });
          for (const file of files) {
            const absolute = `${dir.harnessDir}/${file.path}`;
            resources.push({
              uri: `cairn://files${encodeURI(absolute)}`,
              name: absolute,
              mimeType: file.isText ? "text/plain" : "application/octet-stream",
              description: `${dir.label}${dir.writable ? "" : " (read-only)"}`,
            });
          }
        }
        return { resources };
      },
    }),
    {
      title: "Memory files",
      description:
        "Files of your persistent dirs (/persistent/user, /persistent/company, /persistent/docs).",
    },
    async (uri) => {
      const absolute = decodeURI(uri.pathname ? `/${uri.host}${uri.pathname}` : "");
      const withoutPrefix = absolute.startsWith("/files/") ? absolute.slice("/files".length) : "";
      const dir = dirs
        .listVisibleDirs({ actor })
        .find((candidate) => withoutPrefix.startsWith(`${candidate.harnessDir}/`));
      if (!dir) throw resourceNotFound(uri, "memory file");
      const file = await dirs.readFile({
        actor,
        harnessDir: dir.harnessDir,
        path: withoutPrefix.slice(dir.harnessDir.length + 1),
      });
      if (!file) throw resourceNotFound(uri, "memory file");
      return {
        contents: [
          file.text === null
            ? {
                uri: uri.href,
                mimeType: "application/octet-stream",
                text: `(binary, ${file.size} bytes)`,
              }
            : { uri: uri.href, mimeType: "text/plain", text: file.text },
        ],
      };
    },
  );

  server.registerResource(
    "harness-entry",
    new ResourceTemplate("cairn://harness/{kind}/{id}", {
      list: async () => {
        const resources = [];
        let cursor: string | null = null;
        const store = harness();
        do {
          const page = await store.listEntries({ scope: "global", cursor, limit: 500 });
          for (const entry of page.items) {
            resources.push({
              uri: `cairn://harness/${entry.kind}/${entry.id}`,
              name: `${entry.kind}/${entry.id}`,
              title: entry.title,
              mimeType: "text/markdown",
            });
          }
          cursor = page.nextCursor;
        } while (cursor && resources.length < 5000);
        return { resources };
      },
    }),
    { title: "Harness entries", description: "The workspace's global harness entries." },
    async (uri, variables) => {
      const kind = String(variables.kind);
      const id = String(variables.id);
      if (!(ENTRY_KINDS as readonly string[]).includes(kind)) {
        throw resourceNotFound(uri, "harness entry");
      }
      const entry = await harness().getEntry({ kind: kind as EntryKind, id, scope: "global" });
      if (!entry) throw resourceNotFound(uri, "harness entry");
      return {
        contents: [
          {
            uri: uri.href,
            mimeType: "text/markdown",
            text: `# ${entry.title}\n\n${entry.content}\n\n<!-- ${entry.kind} ${entry.id} v${entry.version}, path ${entry.path} -->\n`,
          },
        ],
      };
    },
  );

  return server;
}

async function recentGlobalRefinements(
  sql: SqlExecutor,
  workspaceId: string,
): Promise<RecentRefinement[]> {
  const rows = await sql.all<{ id: string; summary: string; status: string; createdAt: unknown }>(
    `SELECT "id", "summary", "status", "createdAt" FROM "Refinement"
     WHERE "workspaceId" = ? AND "scope" = 'global' AND "status" <> 'imported'
     ORDER BY "createdAt" DESC LIMIT 3`,
    [workspaceId],
  );
  return rows.map((row) => ({
    id: row.id,
    summary: row.summary,
    status: row.status,
    createdAt: toDate(row.createdAt).toISOString(),
  }));
}

/**
 * The MCP spec's answer to a `resources/read` of a URI that names nothing: JSON-RPC error
 * -32002 ("Resource not found") with the URI in `data`, not a generic internal error.
 */
function resourceNotFound(uri: URL, what: string): McpError {
  return new McpError(-32002, `No ${what} at ${uri.href}.`, { uri: uri.href });
}
