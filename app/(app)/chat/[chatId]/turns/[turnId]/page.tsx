import Link from "next/link";
import { notFound } from "next/navigation";
import { Badge } from "@/components/ui/badge";
import { requireActor } from "@/lib/auth";
import { getTurnForActor } from "@/lib/chat";
import type { TurnTraceEvent } from "@/lib/harness";

export const metadata = { title: "Turn trace" };

export const dynamic = "force-dynamic";

function json(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value, null, 2);
  return text.length > 4000 ? `${text.slice(0, 4000)}\n…` : text;
}

function offset(event: TurnTraceEvent, start: number): string {
  return `+${Math.max(0, new Date(event.at).getTime() - start)} ms`;
}

/** Trace events in words a person knows; the raw event name stays in the tooltip. */
const EVENT_LABELS: Record<string, string> = {
  "dir.loaded": "Files loaded",
  "instructions.built": "Prompt built",
  "tool.call": "Tool called",
  "tool.result": "Tool answered",
  "commit.started": "Saving files",
  "commit.succeeded": "Files saved",
  "commit.conflict": "Save conflict",
  "commit.failed": "Save failed",
  "model.step": "Model step",
  "model.error": "Model error",
  compaction: "Conversation summarized",
  delegate: "Sub-agent called",
  "turn.finished": "Turn finished",
};

function EventRow({ event, start }: { event: TurnTraceEvent; start: number }) {
  const head = (
    <div className="flex items-center gap-2">
      <Badge title={event.type}>{EVENT_LABELS[event.type] ?? event.type}</Badge>
      <span className="text-muted-foreground text-xs">{offset(event, start)}</span>
    </div>
  );
  let body: React.ReactNode = null;
  switch (event.type) {
    case "dir.loaded":
      body = `${event.harnessDir}: ${event.fileCount} files, ${event.bytes} bytes, ${event.readOnly ? `read-only (${event.readOnlyReason ?? ""})` : "writable"}`;
      break;
    case "instructions.built":
      body = (
        <ul className="text-xs">
          {event.sections.map((section) => (
            <li key={section.name}>
              {section.title}: {section.tokens} tokens
            </li>
          ))}
          <li className="font-medium">total: {event.totalTokens} tokens</li>
        </ul>
      );
      break;
    case "tool.call":
      body = (
        <pre className="text-xs whitespace-pre-wrap">{`${event.toolName}(${json(event.input)})`}</pre>
      );
      break;
    case "tool.result":
      body = (
        <pre className={`text-xs whitespace-pre-wrap ${event.isError ? "text-destructive" : ""}`}>
          {`${event.toolName} → ${json(event.output)} (${event.durationMs} ms)`}
        </pre>
      );
      break;
    case "commit.started":
    case "commit.succeeded":
      body = `${event.harnessDir}: created ${event.changes.created.join(", ") || "—"}; updated ${event.changes.updated.join(", ") || "—"}; deleted ${event.changes.deleted.join(", ") || "—"}`;
      break;
    case "commit.conflict":
      body = `${event.harnessDir}: ${event.message}`;
      break;
    case "commit.failed":
      body = `${event.harnessDir}: ${event.error.message}`;
      break;
    case "host.write":
    case "host.delete":
      body = `${event.path}: ${event.bytes} bytes by the host (commit: ${event.commit})`;
      break;
    case "host.refused":
      body = <span className="text-destructive">{`${event.path}: ${event.error.message}`}</span>;
      break;
    case "model.step":
      body = `step ${event.step}: ${event.finishReason}, ${event.inputTokens ?? "?"} in / ${event.outputTokens ?? "?"} out tokens`;
      break;
    case "model.error":
      body = <span className="text-destructive">{event.message}</span>;
      break;
    case "compaction":
      body = `${event.removedMessages} messages summarized: ${event.tokensBefore} → ${event.tokensAfter} tokens`;
      break;
    case "delegate":
      body = `${event.subagent} with tools ${event.tools.join(", ") || "none"}`;
      break;
    case "turn.finished":
      body = `${event.status} in ${event.durationMs} ms`;
      break;
    default:
      body = null;
  }
  return (
    <li
      className="border-border space-y-1 border-t py-2"
      data-testid="trace-event"
      data-type={event.type}
    >
      {head}
      {body ? <div className="text-sm">{body}</div> : null}
    </li>
  );
}

export default async function TracePage(props: {
  params: Promise<{ chatId: string; turnId: string }>;
}) {
  const actor = await requireActor();
  const { chatId, turnId } = await props.params;
  const turn = await getTurnForActor(actor, turnId);
  if (!turn || turn.chatId !== chatId) notFound();
  const start = turn.startedAt.getTime();
  return (
    <div className="space-y-4">
      <Link
        className="text-muted-foreground text-sm hover:underline"
        href={`/chat/${chatId}?turn=${turn.id}`}
      >
        ← Back to the chat
      </Link>
      <h1 className="text-2xl font-semibold">Turn trace</h1>
      <p className="text-muted-foreground text-sm" data-testid="turn-summary">
        {turn.status}
        {turn.error ? ` — ${turn.error}` : ""} · {turn.model ?? "unknown model"} · started{" "}
        {turn.startedAt.toLocaleString()}
        {turn.finishedAt ? ` · ${turn.finishedAt.getTime() - start} ms` : ""} ·{" "}
        {turn.inputTokens ?? "?"} in / {turn.outputTokens ?? "?"} out tokens
      </p>
      <ol data-testid="trace">
        {turn.trace.map((event, index) => (
          <EventRow key={index} event={event} start={start} />
        ))}
      </ol>
    </div>
  );
}
