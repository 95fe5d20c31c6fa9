import {
  HarnessValidationError,
  createHarness,
  type Actor,
  type GlobalEntryProposal,
  type HarnessStoragePort,
} from "@/lib/harness";
import type { Sql } from "@/lib/sql-storage/sql";
import { createSuggestion, type EntryProposal, type SuggestionSource } from "./suggestion-store";

/**
 * Records a proposed change to a global harness entry as a suggestion: the entry as it is now
 * (its version and text) is kept as the base the change is made against. Used by the agent's
 * harness tools, MCP, an entry's page and promotion alike.
 */
export async function suggestGlobalEntryChange(options: {
  sql: Sql;
  harnessStorage: HarnessStoragePort;
  actor: Actor;
  proposal: GlobalEntryProposal;
  source: SuggestionSource;
  note?: string;
  chatId?: string | null;
  turnId?: string | null;
  via?: string | null;
}): Promise<{ id: string }> {
  const { proposal, actor } = options;
  const harness = createHarness({ storage: options.harnessStorage, actor, chatId: null });
  const current = proposal.id
    ? await harness.getEntry({ kind: proposal.kind, id: proposal.id, scope: "global" })
    : null;
  if (proposal.action !== "create" && !current) {
    throw new HarnessValidationError({
      surface: "suggestion",
      message: `There is no global ${proposal.kind} ${proposal.id ?? ""} to change.`,
    });
  }
  const { action, kind, id, reason, expectedVersion, ...fields } = proposal;
  const entry: EntryProposal = {
    action,
    kind,
    ...(id ? { id } : {}),
    // The version the proposer saw (named in an update), else the one there now.
    baseVersion: action === "create" ? null : (expectedVersion ?? current?.version ?? null),
    fields: Object.fromEntries(
      Object.entries(fields).filter(([, value]) => value !== undefined),
    ) as EntryProposal["fields"],
    base: current ? { title: current.title, content: current.content } : null,
  };
  return createSuggestion(options.sql, {
    actor,
    source: options.source,
    note: options.note ?? reason ?? "",
    chatId: options.chatId ?? null,
    turnId: options.turnId ?? null,
    via: options.via ?? null,
    proposal: { target: "entry", entry },
  });
}
