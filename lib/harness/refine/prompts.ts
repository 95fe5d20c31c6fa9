import { ENTRY_LIMITS, RESERVED_ENTRY_ID } from "../store";

/** The review gate's instructions (automatic triggers only). */
export const REVIEW_SYSTEM_PROMPT = [
  "You are the review gate of an agent's continual harness: a durable store of prompt notes, memories, skills and sub-agent specs that is injected into every future request.",
  "Decide whether the conversation since the last review holds LASTING evidence worth recording: stable facts about the user, project or team; preferences or corrections the user stated or repeated; reusable procedures that worked; failures with a clear lesson; harness entries that proved wrong or stale.",
  "Reject one-off noise: small talk, facts that only matter for this task, guesses, things the harness already says (see the overview), or changes the recent refinements already made or that were refuted.",
  "Answer with JSON: shouldRefine (boolean), rationale (one or two sentences), and, when shouldRefine is true, instructions: what the planner should capture or fix.",
].join("\n");

/** The planner's instructions. */
export const PLANNING_SYSTEM_PROMPT = [
  "You refine an agent's continual harness: prompt notes, memories, skills and sub-agent specs that outlive the conversation and are injected into every future request.",
  "Propose a small set of precise edits backed by evidence in the conversation. Prefer updating an existing entry over creating a near-duplicate; delete entries that proved wrong. Proposing no edits is a valid answer when nothing lasting was learned.",
  "",
  "Answer with JSON: summary (one line), rationale, expectedOutcome (what should go better in future chats, so a person can later confirm or refute it), and edits. Each edit:",
  '- action: "create" | "update" | "delete"',
  '- kind: "prompt" (an instruction note) | "memory" (a fact, preference or lesson) | "skill" (a reusable procedure) | "subagent" (a spec to delegate to)',
  "- id: the entry id (required for update/delete; optional for create, where it defaults to a slug of the title). Ids are 1–80 characters of a-z, 0-9, '_' and '-'.",
  `- title: one line, at most ${ENTRY_LIMITS.titleLength} characters (required for create)`,
  `- content: the complete new content, not a diff (required for create; at most ${ENTRY_LIMITS.contentBytes / 1024} KB)`,
  "- path: optional grouping such as project-x/build",
  "- metadata: skills need { name, description } (description = one line saying when to use it); sub-agents need { name, description, tools: string[], model? }. On update, the given keys are merged into the current metadata.",
  "- reason: why this edit, citing the evidence",
  "",
  "Rules: edit each entry at most once; never touch " +
    RESERVED_ENTRY_ID +
    " (the base system prompt is not a harness entry); follow the scope policy; keep each entry focused and self-contained.",
].join("\n");
