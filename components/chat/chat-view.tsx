"use client";

import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, type UIMessage } from "ai";
import { Square, SendHorizontal } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, useTransition } from "react";
import { requestRefinementAction } from "@/app/(app)/chat/refine-actions";
import type { Refinement } from "@/lib/harness/refine/types";
import { AssistantMarkdown } from "./assistant-markdown";
import { RefinementCard } from "./refinement-card";
import { InterruptedTurnNotice, PendingSaveStatus } from "./turn-save-status";
import { Button } from "@/components/ui/button";
import { cn } from "@/lib/utils";
import { describeChatError } from "./chat-error";

interface TurnData {
  turnId?: string;
  status: "completed" | "failed" | "aborted";
  error?: string;
  persistence: {
    status: "not-configured" | "succeeded" | "failed";
    savedFiles: number;
    failedCommits: number;
    /** Kept on the server and retried automatically (absent in turns recorded before). */
    pendingCommits?: number;
  };
}

type Part = UIMessage["parts"][number];

/** One-line summary of a tool call: which file was written, which entry was created. */
function toolSummary(name: string, input: Record<string, unknown> | undefined): string {
  if (!input) return name;
  if (name === "memory") {
    const command = String(input.command ?? "");
    const target = String(input.path ?? input.old_path ?? "");
    return `memory · ${command} ${target}${input.new_path ? ` → ${String(input.new_path)}` : ""}`;
  }
  if (name === "bash") return `bash · ${String(input.command ?? "").slice(0, 80)}`;
  if (name === "create_entry" || name === "update_entry" || name === "delete_entry") {
    const label = input.title ?? input.name ?? input.id ?? "";
    return `${name.replace("_", " ")} · ${String(input.kind ?? "")} ${String(label)}${input.global ? " (global)" : ""}`;
  }
  if (name === "delegate") return `delegate · ${String(input.subagent ?? "")}`;
  if (name === "load_skill") return `load skill · ${String(input.name ?? "")}`;
  return name;
}

function ToolPart({ part }: { part: Part }) {
  const name = part.type.startsWith("tool-") ? part.type.slice(5) : "tool";
  const state = "state" in part ? String(part.state) : "";
  const input = "input" in part ? (part.input as Record<string, unknown> | undefined) : undefined;
  const output = "output" in part ? part.output : undefined;
  const failed =
    state === "output-error" || (typeof output === "string" && output.startsWith("Error:"));
  return (
    <details
      className={cn(
        "border-border rounded-md border px-3 py-1 text-xs",
        failed && "border-destructive/50",
      )}
      data-testid="tool-call"
      data-tool={name}
      data-failed={failed ? "true" : "false"}
    >
      <summary className="cursor-pointer font-mono">
        {toolSummary(name, input)}{" "}
        {state === "output-available" || state === "output-error" ? "" : "…"}
        {failed ? <span className="text-destructive ml-2">refused</span> : null}
      </summary>
      <pre className="text-muted-foreground mt-1 whitespace-pre-wrap">
        {typeof output === "string" ? output : JSON.stringify(output ?? input, null, 2)}
      </pre>
    </details>
  );
}

function TurnStatusLine({ data, chatId }: { data: TurnData; chatId: string }) {
  const { persistence } = data;
  const trace = data.turnId ? (
    <>
      {" · "}
      <Link className="underline" href={`/chat/${chatId}?turn=${data.turnId}`}>
        context
      </Link>
      {" · "}
      <Link
        className="underline"
        href={`/chat/${chatId}/turns/${data.turnId}`}
        data-testid="trace-link"
      >
        trace
      </Link>
    </>
  ) : null;
  let text: React.ReactNode = null;
  if (data.status === "failed")
    text = (
      <span className="text-destructive">
        Turn failed{data.error ? `: ${data.error}` : ""}. Nothing was saved.
      </span>
    );
  else if (data.status === "aborted") text = "Stopped. Nothing was saved.";
  else if (persistence.failedCommits > 0)
    text = (
      <span className="text-destructive">
        Saving memory failed — its changes are kept on{" "}
        <Link className="underline" href="/files/failures">
          Commit failures
        </Link>
      </span>
    );
  else if ((persistence.pendingCommits ?? 0) > 0 && data.turnId)
    text = <PendingSaveStatus turnId={data.turnId} pending={persistence.pendingCommits ?? 0} />;
  else if (persistence.savedFiles > 0)
    text = `Memory saved: ${persistence.savedFiles} file${persistence.savedFiles === 1 ? "" : "s"}`;
  else text = "No memory changes";
  return (
    <p className="text-muted-foreground text-xs" data-testid="turn-status">
      {text}
      {trace}
    </p>
  );
}

function MessageView({
  message,
  chatId,
  interrupted,
}: {
  message: UIMessage;
  chatId: string;
  /** Set on a user message whose turn was interrupted. */
  interrupted?: { keptChanges: number; savedChanges?: number };
}) {
  return (
    <div
      className={cn("space-y-2", message.role === "user" && "ml-auto max-w-[80%]")}
      data-testid={`message-${message.role}`}
    >
      {message.parts.map((part, index) => {
        if (part.type === "text") {
          return message.role === "user" ? (
            <p key={index} className="bg-muted rounded-lg px-3 py-2 whitespace-pre-wrap">
              {part.text}
            </p>
          ) : (
            <div
              key={index}
              className="prose prose-sm dark:prose-invert max-w-none"
              data-testid="assistant-text"
            >
              <AssistantMarkdown>{part.text}</AssistantMarkdown>
            </div>
          );
        }
        if (part.type.startsWith("tool-")) return <ToolPart key={index} part={part} />;
        if (part.type === "data-turn")
          return (
            <TurnStatusLine key={index} data={(part as { data: TurnData }).data} chatId={chatId} />
          );
        return null;
      })}
      {interrupted ? (
        <InterruptedTurnNotice
          keptChanges={interrupted.keptChanges}
          savedChanges={interrupted.savedChanges}
        />
      ) : null}
    </div>
  );
}

/** How long the chat keeps looking for the outcome of a requested refinement. */
const REFINEMENT_WAIT_MS = 120_000;

export function ChatView({
  chatId,
  initialMessages,
  refinements,
  canRefineGlobally,
  interruptedTurns = {},
}: {
  chatId: string;
  initialMessages: UIMessage[];
  refinements: Refinement[];
  canRefineGlobally: boolean;
  /** User message id → its interrupted turn's kept change sets. */
  interruptedTurns?: Record<string, { keptChanges: number; savedChanges?: number }>;
}) {
  const router = useRouter();
  const [input, setInput] = useState("");
  const [waitingFor, setWaitingFor] = useState<{ since: number; known: number } | null>(null);
  const [refinePending, startRefine] = useTransition();
  const [refineGlobal, setRefineGlobal] = useState(false);

  // A refinement runs after the response, in the job queue: look for its card until it has an
  // outcome (it shows as queued, then running, first).
  const inFlight = refinements.some(
    (refinement) => refinement.status === "queued" || refinement.status === "running",
  );
  const waiting = waitingFor !== null && (refinements.length <= waitingFor.known || inFlight);
  useEffect(() => {
    if (!waiting || !waitingFor) return;
    const timer = setInterval(() => {
      if (Date.now() - waitingFor.since > REFINEMENT_WAIT_MS) setWaitingFor(null);
      else router.refresh();
    }, 1500);
    return () => clearInterval(timer);
  }, [waiting, waitingFor, router]);
  const awaitRefinement = () => setWaitingFor({ since: Date.now(), known: refinements.length });
  const lastSent = useRef("");
  const { messages, sendMessage, setMessages, status, stop, error } = useChat({
    id: chatId,
    messages: initialMessages,
    transport: new DefaultChatTransport({
      api: "/api/chat",
      prepareSendMessagesRequest: ({ id, messages: all }) => ({
        body: { chatId: id, message: all.at(-1) },
      }),
    }),
    onError: (failure) => {
      // 409: another turn is running in this chat and nothing was stored. Take the message back
      // out of the list and put its text back in the box, so sending again is one click.
      if (!describeChatError(failure).busy) return;
      setMessages((current) => (current.at(-1)?.role === "user" ? current.slice(0, -1) : current));
      setInput((typed) => typed || lastSent.current);
    },
    onFinish: ({ message }) => {
      const asked = message.parts.some(
        (part) =>
          part.type === "data-refine" ||
          (part.type === "tool-refine" && "state" in part && part.state === "output-available"),
      );
      if (asked) awaitRefinement();
      router.refresh();
    },
  });
  const busy = status === "submitted" || status === "streaming";
  return (
    <div className="flex min-h-[60vh] flex-col gap-4">
      <div className="flex-1 space-y-6" data-testid="messages">
        {messages.length === 0 ? (
          <p className="text-muted-foreground text-sm">Say something. I remember across chats.</p>
        ) : null}
        {messages.map((message) => (
          <MessageView
            key={message.id}
            message={message}
            chatId={chatId}
            interrupted={interruptedTurns[message.id]}
          />
        ))}
        {status === "submitted" ? <p className="text-muted-foreground text-sm">Thinking…</p> : null}
        {refinements.length > 0 ? (
          <section className="space-y-2" data-testid="refinements">
            {[...refinements].reverse().map((refinement) => (
              <RefinementCard key={refinement.id} refinement={refinement} />
            ))}
          </section>
        ) : null}
        {waiting ? (
          <p className="text-muted-foreground text-xs" data-testid="refinement-waiting">
            Refining the harness…
          </p>
        ) : null}
        {error ? <ChatError error={error} /> : null}
      </div>
      <form
        className="border-border bg-background sticky bottom-0 flex gap-2 border-t pt-3"
        onSubmit={(event) => {
          event.preventDefault();
          const text = input.trim();
          if (!text || busy) return;
          lastSent.current = text;
          void sendMessage({ text });
          setInput("");
        }}
      >
        <textarea
          aria-label="Message"
          data-testid="chat-input"
          className="border-border focus-visible:ring-ring min-h-12 flex-1 resize-y rounded-md border bg-transparent p-2 text-sm focus-visible:ring-2 focus-visible:outline-none"
          value={input}
          onChange={(event) => setInput(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Enter" && !event.shiftKey) {
              event.preventDefault();
              event.currentTarget.form?.requestSubmit();
            }
          }}
          placeholder="Message Cairn…"
        />
        <div className="flex flex-col items-stretch gap-1">
          <Button
            type="button"
            variant="outline"
            size="sm"
            data-testid="refine"
            disabled={busy || refinePending || waiting}
            onClick={() =>
              startRefine(async () => {
                const result = await requestRefinementAction({ chatId, global: refineGlobal });
                if (result.ok) awaitRefinement();
              })
            }
          >
            Refine
          </Button>
          {canRefineGlobally ? (
            <label className="text-muted-foreground flex items-center gap-1 text-xs">
              <input
                type="checkbox"
                checked={refineGlobal}
                onChange={(event) => setRefineGlobal(event.target.checked)}
              />
              global
            </label>
          ) : null}
        </div>
        {busy ? (
          <Button
            type="button"
            variant="outline"
            onClick={() => void stop()}
            data-testid="stop"
            aria-label="Stop"
          >
            <Square className="size-4" />
          </Button>
        ) : (
          <Button type="submit" data-testid="send" aria-label="Send" disabled={!input.trim()}>
            <SendHorizontal className="size-4" />
          </Button>
        )}
      </form>
    </div>
  );
}

function ChatError({ error }: { error: Error }) {
  const { message, busy } = describeChatError(error);
  return (
    <p className="text-destructive text-sm" data-testid="chat-error" data-busy={busy || undefined}>
      {message}
      {busy ? "" : " Nothing was saved."}
    </p>
  );
}
