import Link from "next/link";
import type { TurnView } from "@/lib/chat";

/** What went into the prompt of one turn: sections with token counts, entries, files, cuts. */
export function ContextPanel({ turn }: { turn: TurnView | null }) {
  if (!turn) {
    return (
      <aside
        className="border-border text-muted-foreground rounded-lg border p-4 text-sm"
        data-testid="context-panel"
      >
        The Context panel shows what went into the prompt after the first turn.
      </aside>
    );
  }
  const total = turn.sections.reduce((sum, section) => sum + section.tokens, 0);
  return (
    <aside
      className="border-border space-y-3 rounded-lg border p-4 text-sm"
      data-testid="context-panel"
    >
      <div className="flex items-center justify-between">
        <h2 className="font-medium">Context</h2>
        <Link className="text-xs underline" href={`/chat/${turn.chatId}/turns/${turn.id}`}>
          full trace
        </Link>
      </div>
      <p className="text-muted-foreground text-xs">
        Turn {turn.status} · {total} prompt tokens of instructions
        {turn.model ? ` · ${turn.model}` : ""}
      </p>
      <ul className="space-y-2">
        {turn.sections.map((section) => {
          const details = (section.details ?? {}) as {
            entriesShown?: string[];
            entriesTotal?: number;
            filesListed?: string[];
            truncated?: boolean;
            tokenBudget?: number;
          };
          return (
            <li key={section.name} data-testid={`context-section-${section.name}`}>
              <div className="flex justify-between">
                <span>{section.title}</span>
                <span className="font-mono text-xs">
                  {section.tokens} tok{details.tokenBudget ? ` / ${details.tokenBudget}` : ""}
                </span>
              </div>
              {details.entriesShown && details.entriesTotal ? (
                <p className="text-muted-foreground text-xs">
                  {details.entriesShown.length} of {details.entriesTotal} entries shown:{" "}
                  {details.entriesShown.slice(0, 12).join(", ")}
                  {details.entriesShown.length > 12 ? " …" : ""}
                </p>
              ) : null}
              {details.filesListed ? (
                <p className="text-muted-foreground text-xs" data-testid="context-files">
                  Files listed:{" "}
                  {details.filesListed.length ? details.filesListed.join(", ") : "none"}
                </p>
              ) : null}
              {details.truncated ? (
                <p className="text-xs text-amber-600">truncated to fit</p>
              ) : null}
            </li>
          );
        })}
      </ul>
      {turn.compaction ? (
        <p className="text-muted-foreground text-xs">
          Compacted {turn.compaction.removedMessageIds.length} older messages into a summary.
        </p>
      ) : null}
    </aside>
  );
}
