import {
  ENTRY_KINDS,
  KIND_LABELS,
  compareEntriesCanonically,
  entryKeyOf,
  type Entry,
  type EntryKind,
  type EntryScope,
  type Harness,
} from "../store";
import { type ConversationMessage, type Refinement, type RefinementTrigger } from "./types";

/** The size limits of the review and planning prompts. Character counts are UTF-16 code units. */
export const REFINEMENT_CONTEXT_LIMITS = {
  /** Entries listed per kind in the harness overview. */
  entriesPerKind: 40,
  /** Refinements listed in the history section. */
  recentRefinements: 20,
  /** The conversation tail the review gate sees. */
  reviewConversationChars: 40_000,
  /** The conversation tail the planner sees. */
  planningConversationChars: 80_000,
  /** Content shown per entry in the planning prompt (the planner rewrites whole contents). */
  entryContentChars: 2_000,
  /** Content shown for all entries together in the planning prompt. */
  harnessContentChars: 60_000,
  /** One refinement summary in the history section. */
  summaryChars: 300,
  /** User or review instructions. */
  instructionsChars: 4_000,
} as const;

/**
 * Which entries a refinement may edit. `local`: this chat's local entries only (global ones
 * are read-only). `global`: the workspace's global entries only (needs the explicit flag and
 * an editor or admin).
 */
export interface RefinementScopePolicy {
  scope: EntryScope;
}

/** Input of `buildRefinementContext`. */
export interface BuildRefinementContextOptions {
  /** The chat's harness (global + this chat's local entries). */
  harness: Harness;
  /** Recent refinements visible to the chat; the 20 newest are shown. */
  refinements: readonly Refinement[];
  /** The conversation so far, oldest first. */
  conversation: readonly ConversationMessage[];
  trigger: RefinementTrigger;
  /** Host-gathered evidence (e.g. rated answers with comments), shown in both prompts; ≤ 20,000 characters. */
  evidence?: string;
  /** Assistant turns since the review gate last ran in this chat. */
  turnsSinceLastReview: number;
  scopePolicy: RefinementScopePolicy;
  /** What the user (explicit trigger) or the review gate asked the planner to focus on. */
  instructions?: string;
  abortSignal?: AbortSignal;
}

/**
 * Everything the two model calls need, taken from one snapshot of the harness so the
 * versions the planner saw are exactly the ones `applyRefinement` checks against.
 */
export interface RefinementContext {
  trigger: RefinementTrigger;
  scope: EntryScope;
  instructions: string | null;
  /** The harness version of the snapshot. */
  harnessVersion: number;
  /** `entryKeyOf(entry)` → version, for every entry visible when the context was built. */
  entryVersions: Record<string, number>;
  /** The review gate's prompt: trigger, overview, history, last 40,000 characters of conversation. */
  reviewPrompt: string;
  /** The planner's prompt: the same with entry contents, 80,000 characters of conversation, the scope policy and instructions. */
  planningPrompt: string;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** The last `max` characters of `text`, never starting in the middle of a surrogate pair. */
function tail(text: string, max: number): string {
  if (text.length <= max) return text;
  let start = text.length - max;
  if (isLowSurrogate(text.charCodeAt(start))) start++;
  return text.slice(start);
}

/** The first `max` characters of `text`, never ending in the middle of a surrogate pair. */
function head(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  if (end > 0 && isHighSurrogate(text.charCodeAt(end - 1))) end--;
  return text.slice(0, end);
}

/** Cuts `text` to at most `max` characters, marking the cut inside the limit. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = ` …[${text.length - max} more characters]`;
  return head(text, Math.max(0, max - marker.length)) + marker;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * The conversation as `role: text` blocks, cut to its last `max` characters (the marker of
 * the cut included).
 */
export function conversationTail(
  conversation: readonly ConversationMessage[],
  max: number,
): string {
  const full = conversation
    .filter((message) => message.text.trim().length > 0)
    .map((message) => `${message.role}: ${message.text}`)
    .join("\n\n");
  if (full.length <= max) return full;
  const marker = `[… ${full.length} characters in all; only the last ones are shown]\n`;
  return marker + tail(full, Math.max(0, max - marker.length));
}

function sortForOverview(entries: Entry[]): Entry[] {
  return entries.sort(
    (a, b) =>
      Number(b.pinned) - Number(a.pinned) ||
      (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0) ||
      compareEntriesCanonically(a, b),
  );
}

function entryLine(entry: Entry): string {
  const label =
    entry.kind === "skill" || entry.kind === "subagent"
      ? `${String(entry.metadata.name ?? entry.title)} — ${oneLine(String(entry.metadata.description ?? ""))}`
      : entry.title;
  return `- [${entry.scope}:${entry.id}] ${label} (${entry.path}, v${entry.version}${entry.pinned ? ", pinned" : ""})`;
}

function renderOverview(
  entries: readonly Entry[],
  harnessVersion: number,
  withContent: boolean,
): string {
  const byKind = new Map<EntryKind, Entry[]>(ENTRY_KINDS.map((kind) => [kind, []]));
  for (const entry of entries) byKind.get(entry.kind)?.push(entry);
  const globalCount = entries.filter((entry) => entry.scope === "global").length;
  const counts = ENTRY_KINDS.map(
    (kind) => `${byKind.get(kind)?.length ?? 0} ${KIND_LABELS[kind].toLowerCase()}`,
  ).join(", ");
  const lines = [
    `Harness v${harnessVersion}: ${counts} (${globalCount} global, ${entries.length - globalCount} local)`,
  ];
  let contentBudget: number = REFINEMENT_CONTEXT_LIMITS.harnessContentChars;
  for (const kind of ENTRY_KINDS) {
    const list = sortForOverview(byKind.get(kind) ?? []);
    if (list.length === 0) continue;
    lines.push("", `${KIND_LABELS[kind]} (${list.length}):`);
    for (const entry of list.slice(0, REFINEMENT_CONTEXT_LIMITS.entriesPerKind)) {
      lines.push(entryLine(entry));
      if (!withContent) continue;
      if (kind === "skill" || kind === "subagent") {
        lines.push(`  metadata: ${clip(JSON.stringify(entry.metadata), 1_000)}`);
      }
      const budget = Math.min(REFINEMENT_CONTEXT_LIMITS.entryContentChars, contentBudget);
      if (budget < 200) {
        lines.push("  (content not shown: the prompt's content budget is used up)");
        continue;
      }
      const content = clip(entry.content, budget);
      contentBudget -= content.length;
      lines.push(...content.split("\n").map((line) => `  | ${line}`));
    }
    if (list.length > REFINEMENT_CONTEXT_LIMITS.entriesPerKind) {
      lines.push(`  +${list.length - REFINEMENT_CONTEXT_LIMITS.entriesPerKind} more not shown`);
    }
  }
  return lines.join("\n");
}

function renderHistory(refinements: readonly Refinement[]): string {
  const recent = [...refinements]
    .sort((a, b) =>
      a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : a.id < b.id ? 1 : -1,
    )
    .slice(0, REFINEMENT_CONTEXT_LIMITS.recentRefinements);
  if (recent.length === 0) return "(no refinements yet)";
  return recent
    .map((refinement) => {
      const counts = new Map<string, number>();
      for (const edit of refinement.edits)
        counts.set(edit.result, (counts.get(edit.result) ?? 0) + 1);
      const editText =
        counts.size === 0
          ? "no edits"
          : [...counts].map(([result, count]) => `${count} ${result}`).join(", ");
      const verdict = refinement.outcome
        ? `; outcome ${refinement.outcome.verdict}${refinement.outcome.note ? `: ${clip(oneLine(refinement.outcome.note), 200)}` : ""}`
        : "";
      const summary = clip(
        oneLine(refinement.summary || refinement.error?.message || ""),
        REFINEMENT_CONTEXT_LIMITS.summaryChars,
      );
      return `- ${refinement.createdAt} [${refinement.trigger}, ${refinement.scope}, ${refinement.status}] ${summary} (${editText}${verdict})`;
    })
    .join("\n");
}

function scopePolicyText(policy: RefinementScopePolicy): string {
  return policy.scope === "global"
    ? [
        "This is a GLOBAL refinement: every edit targets the workspace's global entries, which every chat of the team sees.",
        "Global edits must represent stable cross-session lessons backed by clear evidence. Local entries are not edited here.",
      ].join("\n")
    : [
        "This is a LOCAL refinement: every edit targets this chat's local entries.",
        "Global entries (shown as [global:…]) are read-only here: do not update or delete them; create a local entry instead when this chat needs something different.",
      ].join("\n");
}

function section(name: string, body: string): string {
  return `<${name}>\n${body}\n</${name}>`;
}

/**
 * Builds the review and planning prompts from one harness snapshot. Deterministic: the same
 * inputs give the same prompts. Limits (`REFINEMENT_CONTEXT_LIMITS`): at most 40 entries per
 * kind, the 20 newest refinements, the last 40,000 (review) / 80,000 (planning) characters of
 * the conversation, bounded entry contents and instructions.
 */
export async function buildRefinementContext(
  options: BuildRefinementContextOptions,
): Promise<RefinementContext> {
  const snapshot = await options.harness.snapshot({ abortSignal: options.abortSignal });
  const entryVersions: Record<string, number> = {};
  for (const entry of snapshot.entries) entryVersions[entryKeyOf(entry)] = entry.version;

  const instructions =
    options.instructions !== undefined && options.instructions.trim().length > 0
      ? clip(options.instructions.trim(), REFINEMENT_CONTEXT_LIMITS.instructionsChars)
      : null;
  const triggerText = [
    `Trigger: ${options.trigger}`,
    `Turns since the last review: ${Math.max(0, Math.floor(options.turnsSinceLastReview))}`,
  ].join("\n");
  const history = renderHistory(options.refinements);
  const evidence =
    options.evidence !== undefined && options.evidence.trim().length > 0
      ? [section("feedback", clip(options.evidence.trim(), 20_000))]
      : [];

  const overview = (withContent: boolean) =>
    renderOverview(snapshot.entries, snapshot.harnessVersion, withContent);
  const conversation = (maxChars: number) =>
    section("conversation", conversationTail(options.conversation, maxChars));

  const reviewPrompt = [
    section("trigger", triggerText),
    section("harness-overview", overview(false)),
    section("recent-refinements", history),
    ...evidence,
    conversation(REFINEMENT_CONTEXT_LIMITS.reviewConversationChars),
  ].join("\n\n");

  const planningPrompt = [
    section("trigger", triggerText),
    section("scope-policy", scopePolicyText(options.scopePolicy)),
    section("harness", overview(true)),
    section("recent-refinements", history),
    ...evidence,
    conversation(REFINEMENT_CONTEXT_LIMITS.planningConversationChars),
    section("instructions", instructions ?? "(none: decide from the evidence above)"),
  ].join("\n\n");

  return {
    trigger: options.trigger,
    scope: options.scopePolicy.scope,
    instructions,
    harnessVersion: snapshot.harnessVersion,
    entryVersions,
    reviewPrompt,
    planningPrompt,
  };
}
