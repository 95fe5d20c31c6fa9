"use client";

import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, type UIMessage } from "ai";
import {
  ArrowDown,
  Loader2,
  Pencil,
  RefreshCw,
  RotateCcw,
  SendHorizontal,
  Square,
} from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { requestRefinementAction } from "@/app/(app)/chat/refine-actions";
import type { Refinement } from "@/lib/harness";
import { AssistantMarkdown } from "./assistant-markdown";
import { AnswerFeedback } from "./answer-feedback";
import { RefinementCard } from "./refinement-card";
import { InterruptedTurnNotice, NotKeptSave, TurnSaveStatusLine } from "./turn-save-status";
import { PendingChangeConfirm } from "./pending-change-confirm";
import { Button } from "@/components/ui/button";
import { CopyButton } from "@/components/ui/copy-button";
import { Form } from "@/components/ui/form";
import { useAction } from "@/lib/actions/use-action";
import type { ChatRating } from "@/lib/feedback/tags";
import { cn } from "@/lib/utils";
import { describeChatError, failedReplyText } from "./chat-error";
import { CONNECT_MODEL_HREF } from "./model-missing";
import { useFollowStream } from "./follow-stream";
import { ChatAttach } from "./chat-attach";
import { buildTimeline, takePendingFirstMessage } from "./timeline";

interface TurnData {
  turnId?: string;
  status: "completed" | "failed" | "aborted";
  error?: string;
  /** A `/refine` command turn: no model call, nothing to show but the acknowledgement. */
  refine?: boolean;
  persistence: {
    status: "not-configured" | "succeeded" | "failed";
    savedFiles: number;
    failedCommits: number;
    /** Kept on the server and retried automatically (absent in turns recorded before). */
    pendingCommits?: number;
    /** Held until the person confirms copying private memory into company knowledge. */
    awaitingConfirmation?: number;
    /** Refused and not kept: the person's Commit failures already hold their bound. */
    notKeptCommits?: number;
    /** Why, in plain words. */
    notKept?: string;
    /** Files kept as suggestions for review (company knowledge a member may not change). */
    suggestedFiles?: number;
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

/** A small link that is still 44 px tall to tap on a phone. */
const TAP_LINK =
  "inline-flex min-h-11 min-w-11 items-center justify-center px-1 underline sm:min-h-0 sm:min-w-0 sm:px-0";

function TurnStatusLine({ data, chatId }: { data: TurnData; chatId: string }) {
  if (data.refine) return null;
  const { persistence } = data;
  const trace = data.turnId ? (
    <>
      {" · "}
      <Link className={TAP_LINK} href={`/chat/${chatId}?turn=${data.turnId}`}>
        context
      </Link>
      {" · "}
      <Link
        className={TAP_LINK}
        href={`/chat/${chatId}/turns/${data.turnId}`}
        data-testid="trace-link"
      >
        trace
      </Link>
    </>
  ) : null;
  let text: React.ReactNode = null;
  if (data.status === "failed")
    text = <span className="text-destructive">{failedReplyText(data.error)}</span>;
  else if (data.status === "aborted") text = "Stopped. Nothing was saved.";
  // Turns recorded before turn ids were kept can only point at the failures page.
  else if (persistence.failedCommits > 0 && !data.turnId)
    text = (
      <span className="text-destructive" data-testid="save-failed">
        Saving memory failed — its changes are kept on{" "}
        <Link className="underline" href="/files/failures">
          Commit failures
        </Link>
      </span>
    );
  else if ((persistence.failedCommits > 0 || (persistence.pendingCommits ?? 0) > 0) && data.turnId)
    text = (
      <TurnSaveStatusLine
        turnId={data.turnId}
        pending={persistence.pendingCommits ?? 0}
        failed={persistence.failedCommits}
      />
    );
  else if (persistence.savedFiles > 0)
    text = `Memory saved: ${persistence.savedFiles} file${persistence.savedFiles === 1 ? "" : "s"}`;
  else if ((persistence.awaitingConfirmation ?? 0) > 0) text = "Nothing saved yet: waiting for you";
  else if (!persistence.notKeptCommits && !persistence.suggestedFiles) text = "No memory changes";
  // Changes to company knowledge this person may not make: kept for review, said beside the rest.
  const suggested = persistence.suggestedFiles ?? 0;
  if (suggested > 0 && data.status === "completed")
    text = (
      <>
        <span data-testid="turn-suggested">
          Suggested for review: {suggested} file{suggested === 1 ? "" : "s"} —{" "}
          <Link className="underline" href="/review">
            see Review
          </Link>
        </span>
        {text ? " · " : null}
        {text}
      </>
    );
  // Refused and not kept: said before whatever else the line says, since nothing else shows it.
  if ((persistence.notKeptCommits ?? 0) > 0 && data.status === "completed")
    text = (
      <>
        <NotKeptSave message={persistence.notKept ?? ""} />
        {text ? " " : null}
        {text}
      </>
    );
  const line = (
    <p className="text-muted-foreground text-xs" data-testid="turn-status">
      {text}
      {trace}
    </p>
  );
  // A change copying private memory into company knowledge waits for the person, above the line.
  if ((persistence.awaitingConfirmation ?? 0) > 0 && data.turnId && data.status === "completed")
    return (
      <div className="space-y-1">
        <PendingChangeConfirm turnId={data.turnId} />
        {line}
      </div>
    );
  return line;
}

/** The text a message shows, as copied to the clipboard. */
function messageText(message: UIMessage): string {
  return message.parts
    .map((part) => (part.type === "text" ? part.text : ""))
    .filter(Boolean)
    .join("\n\n");
}

function turnData(message: UIMessage): TurnData | null {
  const part = message.parts.find((item) => item.type === "data-turn") as
    { data: TurnData } | undefined;
  return part?.data ?? null;
}

/** The rating of an answer's turn, if the person rated it. */
function ratingOf(ratings: Record<string, ChatRating>, message: UIMessage): ChatRating | null {
  const turnId = message.role === "assistant" ? turnData(message)?.turnId : undefined;
  return turnId ? (ratings[turnId] ?? null) : null;
}

function ActionButton({
  label,
  testId,
  onClick,
  children,
  disabled,
}: {
  label: string;
  testId: string;
  onClick: () => void;
  children: React.ReactNode;
  disabled?: boolean;
}) {
  return (
    <button
      type="button"
      aria-label={label}
      title={label}
      data-testid={testId}
      disabled={disabled}
      onClick={onClick}
      className="text-muted-foreground hover:bg-muted hover:text-foreground focus-visible:ring-ring inline-flex size-11 items-center justify-center rounded-md focus-visible:ring-2 focus-visible:outline-none disabled:pointer-events-none disabled:opacity-40 sm:size-7"
    >
      {children}
    </button>
  );
}

function RefineRequested({ data, waiting }: { data: RefineData; waiting: boolean }) {
  return (
    <p
      className="text-muted-foreground flex items-center gap-2 text-sm"
      data-testid="refine-requested"
    >
      {waiting ? <Loader2 className="size-3.5 animate-spin" /> : null}
      Refinement requested for {data.scope === "global" ? "the whole workspace" : "this chat"}
      {data.instructions ? `: “${data.instructions}”` : ""}.
      {waiting ? "" : " Its result shows in the refinement card."}
    </p>
  );
}

interface RefineData {
  scope: "local" | "global";
  instructions: string | null;
}

function MessageView({
  message,
  chatId,
  busy,
  isLastAssistant,
  refining,
  onEdit,
  onRegenerate,
  interrupted,
  unsent,
  stopped,
  hideRegenerate,
  rating,
}: {
  /** An error below offers Retry: no second, icon-only way to do the same. */
  hideRegenerate?: boolean;
  /** The person stopped this reply here; nothing of it was saved. */
  stopped?: boolean;
  message: UIMessage;
  /** Shown under a user message that was kept but not sent. */
  unsent?: React.ReactNode;
  chatId: string;
  /** The person's rating of this answer (assistant messages of completed turns). */
  rating?: ChatRating | null;
  /** Set on a user message whose turn was interrupted. */
  interrupted?: { keptChanges: number; savedChanges?: number };
  busy: boolean;
  isLastAssistant: boolean;
  refining: boolean;
  onEdit: (text: string) => void;
  onRegenerate: () => void;
}) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState("");
  const text = messageText(message);
  const isUser = message.role === "user";
  const data = turnData(message);
  const refine = message.parts.find((part) => part.type === "data-refine") as
    { data: RefineData } | undefined;
  if (isUser && editing) {
    return (
      <Form
        className="ml-auto w-full max-w-[85%] space-y-2"
        data-testid="message-edit-form"
        onSubmit={() => {
          const next = draft.trim();
          if (!next) return;
          setEditing(false);
          onEdit(next);
        }}
      >
        <textarea
          aria-label="Edit message"
          data-testid="message-edit-input"
          className="border-border focus-visible:ring-ring min-h-20 w-full rounded-md border bg-transparent p-2 text-sm focus-visible:ring-2 focus-visible:outline-none"
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
        />
        <div className="flex justify-end gap-2">
          <Button type="button" variant="ghost" size="sm" onClick={() => setEditing(false)}>
            Cancel
          </Button>
          <Button type="submit" size="sm" data-testid="message-edit-send" disabled={busy}>
            Send
          </Button>
        </div>
        <p className="text-muted-foreground text-xs">
          The replies after this message are replaced. Memory they saved stays.
        </p>
      </Form>
    );
  }
  const canRetry = !isUser && isLastAssistant && !busy && data?.status === "failed";
  return (
    <div
      className={cn("group space-y-2", isUser && "ml-auto max-w-[85%]")}
      data-testid={`message-${message.role}`}
      data-message-id={message.id}
    >
      {message.parts.map((part, index) => {
        if (part.type === "text") {
          return isUser ? (
            <p
              key={index}
              className="bg-muted rounded-lg px-3 py-2 break-words whitespace-pre-wrap"
            >
              {part.text}
            </p>
          ) : (
            <div
              key={index}
              className="prose prose-sm dark:prose-invert max-w-none break-words"
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
        if (part.type === "data-refine")
          return (
            <RefineRequested
              key={index}
              data={(part as { data: RefineData }).data}
              waiting={refining && isLastAssistant}
            />
          );
        return null;
      })}
      {unsent}
      {stopped ? (
        <p className="text-muted-foreground text-xs" data-testid="turn-status" data-stopped="true">
          Stopped. Nothing was saved.
        </p>
      ) : null}
      {interrupted ? (
        <InterruptedTurnNotice
          keptChanges={interrupted.keptChanges}
          savedChanges={interrupted.savedChanges}
        />
      ) : null}
      {refine ? null : (
        <div
          className={cn(
            "flex flex-wrap items-center gap-0.5",
            isUser && "justify-end",
            // Visible on touch screens; on wide screens they appear on hover or focus.
            "sm:opacity-0 sm:group-focus-within:opacity-100 sm:group-hover:opacity-100",
            (canRetry || isLastAssistant) && "sm:opacity-100",
          )}
          data-testid="message-actions"
        >
          {text ? <CopyButton text={text} testId="message-copy" /> : null}
          {!isUser && data?.turnId && data.status === "completed" ? (
            <AnswerFeedback turnId={data.turnId} initial={rating ?? null} />
          ) : null}
          {isUser ? (
            <ActionButton
              label="Edit and resend"
              testId="message-edit"
              disabled={busy}
              onClick={() => {
                setDraft(text);
                setEditing(true);
              }}
            >
              <Pencil className="size-3.5" />
            </ActionButton>
          ) : null}
          {!isUser && isLastAssistant && !canRetry && !hideRegenerate ? (
            <ActionButton
              label="Regenerate"
              testId="message-regenerate"
              disabled={busy}
              onClick={onRegenerate}
            >
              <RefreshCw className="size-3.5" />
            </ActionButton>
          ) : null}
          {canRetry ? (
            <Button variant="outline" size="sm" data-testid="retry" onClick={onRegenerate}>
              <RotateCcw className="size-3.5" /> Retry
            </Button>
          ) : null}
        </div>
      )}
    </div>
  );
}

/** How long the chat keeps looking for the outcome of a requested refinement. */
const REFINEMENT_WAIT_MS = 120_000;

function Elapsed({ since }: { since: number }) {
  const [now, setNow] = useState(since);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return <span>{Math.max(0, Math.round((now - since) / 1000))} s</span>;
}

export function ChatView({
  chatId,
  initialMessages,
  messageTimes,
  refinements,
  rolledBack,
  canRefineGlobally,
  interruptedTurns = {},
  modelReady = true,
  isAdmin = false,
  unansweredTurn = null,
  ratings = {},
}: {
  /** The latest turn, when it failed or was stopped before any answer was stored. */
  unansweredTurn?: {
    userMessageId: string;
    status: "failed" | "aborted";
    error: string | null;
  } | null;
  chatId: string;
  initialMessages: UIMessage[];
  /** When each stored message was written (ISO 8601), to place refinement cards. */
  messageTimes: Record<string, string>;
  refinements: Refinement[];
  /** Refinement id → the rollback that undid it. */
  rolledBack: Record<string, { id: string }>;
  canRefineGlobally: boolean;
  /** User message id → its interrupted turn's kept change sets. */
  interruptedTurns?: Record<string, { keptChanges: number; savedChanges?: number }>;
  /** Whether a model can answer now; without one, messages are kept and shown as not sent. */
  modelReady?: boolean;
  /** Admins are pointed at Admin → Settings → Model; others are told to ask one. */
  isAdmin?: boolean;
  /** Turn id → the person's rating of that answer. */
  ratings?: Record<string, ChatRating>;
}) {
  const router = useRouter();
  // Whether anything was sent from this page (the live region speaks only of those replies).
  const [sentHere, setSentHere] = useState(false);
  const [input, setInput] = useState("");
  const [waitingFor, setWaitingFor] = useState<{ since: number; known: number } | null>(null);
  const { pending: refinePending, error: refineError, run: runRefine } = useAction();
  const [refineGlobal, setRefineGlobal] = useState(false);
  const timelineRef = useRef<HTMLDivElement>(null);
  const endRef = useRef<HTMLDivElement>(null);
  const barRef = useRef<HTMLFormElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);
  // Arriving in a chat (also the one just started on /chat) puts the focus in the message box,
  // not back on the page's body.
  useEffect(() => {
    const active = document.activeElement;
    const typing =
      active instanceof HTMLInputElement ||
      active instanceof HTMLTextAreaElement ||
      active instanceof HTMLSelectElement;
    if (!typing) inputRef.current?.focus({ preventScroll: true });
  }, [chatId]);

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
  const { messages, sendMessage, setMessages, regenerate, status, stop, error, clearError } =
    useChat({
      id: chatId,
      messages: initialMessages,
      transport: new DefaultChatTransport({
        api: "/api/chat",
        prepareSendMessagesRequest: ({ id, messages: all, trigger, messageId }) => ({
          body: {
            chatId: id,
            message: all.at(-1),
            mode: trigger === "regenerate-message" ? "regenerate" : messageId ? "edit" : "submit",
          },
        }),
      }),
      onError: (failure) => {
        // 503: no model; the message was stored and stays, marked as not sent.
        if (describeChatError(failure).modelMissing) {
          router.refresh();
          return;
        }
        // 409: another turn is running in this chat and nothing was stored. Take the message back
        // out of the list and put its text back in the box, so sending again is one click.
        if (!describeChatError(failure).busy) return;
        setMessages((current) =>
          current.at(-1)?.role === "user" ? current.slice(0, -1) : current,
        );
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
  // The reply the person stopped: labelled "Stopped" at once, as the stored turn says after a
  // reload (its `data-turn` part never reaches a stream that was cut).
  const [stoppedId, setStoppedId] = useState<string | null>(null);

  const { atLatest, scrollToLatest } = useFollowStream({
    timeline: timelineRef,
    end: endRef,
    bar: barRef,
  });

  // A chat started by typing on /chat: send its first message once the page is here. Deferred
  // with a timer so a mount that is immediately undone (React's strict mode) does not take it.
  useEffect(() => {
    const timer = setTimeout(() => {
      const first = takePendingFirstMessage(chatId);
      if (first && messages.length === 0) {
        setSentHere(true);
        void sendMessage({ text: first, metadata: { sentAt: new Date().toISOString() } });
      }
    }, 0);
    return () => clearTimeout(timer);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, on arrival
  }, []);

  // Stored messages carry their time; one sent from this page carries the time it was sent
  // (metadata), and a reply counts from the message it answers.
  const times = new Map<string, string>();
  let previous = "";
  for (const message of messages) {
    const sentAt = (message.metadata as { sentAt?: string } | undefined)?.sentAt;
    previous = messageTimes[message.id] ?? sentAt ?? previous;
    times.set(message.id, previous);
  }
  const timeline = buildTimeline({
    messages,
    refinements,
    timeOf: (message) => times.get(message.id) ?? "",
  });
  const lastAssistantId = messages.findLast((message) => message.role === "assistant")?.id;
  const lastMessage = messages.at(-1);
  const modelRefused = error ? describeChatError(error).modelMissing === true : false;
  // The reply's own status line already says it failed (with Retry): no second error line.
  const lastTurnFailed =
    lastMessage?.role === "assistant" && turnData(lastMessage)?.status === "failed";
  // No model can answer: said at load, or when the server refused a message with 503.
  const modelMissing = !modelReady || modelRefused;
  // What a screen reader hears: that a reply is being written, then the reply once it is done.
  const announcement = !sentHere
    ? ""
    : busy
      ? "Cairn is replying…"
      : error && !modelRefused
        ? "The reply failed."
        : lastMessage?.role === "assistant"
          ? `Cairn replied: ${messageText(lastMessage).slice(0, 2000)}`
          : "";
  // The last message has no answer and none is being written: it was kept but not sent.
  const unsentId =
    !busy &&
    lastMessage?.role === "user" &&
    !interruptedTurns[lastMessage.id] &&
    (modelRefused || !error)
      ? lastMessage.id
      : null;
  const lastIsAssistant = messages.at(-1)?.role === "assistant";
  const send = (text: string, messageId?: string) => {
    lastSent.current = text;
    setStoppedId(null);
    setSentHere(true);
    clearError();
    scrollToLatest();
    const metadata = { sentAt: new Date().toISOString() };
    void sendMessage(messageId ? { text, messageId, metadata } : { text, metadata });
  };
  const retry = () => {
    setSentHere(true);
    setStoppedId(null);
    clearError();
    scrollToLatest();
    void regenerate();
  };
  return (
    <div className="flex min-h-[60vh] flex-col gap-4">
      <div ref={timelineRef} className="flex-1 space-y-6" data-testid="messages">
        {messages.length === 0 ? (
          <p className="text-muted-foreground text-sm">Say something. I remember across chats.</p>
        ) : null}
        {timeline.map((item) =>
          item.kind === "message" ? (
            <MessageView
              key={item.message.id}
              message={item.message}
              chatId={chatId}
              interrupted={interruptedTurns[item.message.id]}
              rating={ratingOf(ratings, item.message)}
              busy={busy}
              isLastAssistant={lastIsAssistant && item.message.id === lastAssistantId}
              refining={waiting}
              onEdit={(text) => send(text, item.message.id)}
              onRegenerate={retry}
              hideRegenerate={Boolean(error)}
              stopped={
                !busy &&
                item.message.role === "assistant" &&
                (item.message.id === stoppedId ||
                  (stoppedId === "pending" && item.message.id === lastAssistantId)) &&
                turnData(item.message) === null
              }
              unsent={
                item.message.id === unsentId ? (
                  <UnsentNotice
                    modelMissing={modelMissing}
                    isAdmin={isAdmin}
                    onSend={retry}
                    turn={unansweredTurn?.userMessageId === item.message.id ? unansweredTurn : null}
                  />
                ) : null
              }
            />
          ) : (
            <RefinementCard
              key={item.refinement.id}
              refinement={item.refinement}
              rolledBackBy={rolledBack[item.refinement.id]}
            />
          ),
        )}
        {status === "submitted" ? (
          <p className="text-muted-foreground flex items-center gap-2 text-sm">
            <Loader2 className="size-3.5 animate-spin" /> Thinking…
          </p>
        ) : null}
        {waiting && waitingFor ? (
          <p
            className="text-muted-foreground flex items-center gap-2 text-sm"
            data-testid="refinement-waiting"
          >
            <Loader2 className="size-3.5 animate-spin" /> Refining what Cairn remembers…{" "}
            <Elapsed since={waitingFor.since} />
          </p>
        ) : null}
        {error && !modelRefused && !lastTurnFailed ? (
          <ChatError error={error} onRetry={busy ? undefined : retry} />
        ) : null}
        <div ref={endRef} data-testid="timeline-end" />
        <div className="sr-only" aria-live="polite" role="status" data-testid="reply-announcer">
          {announcement}
        </div>
      </div>
      {atLatest ? null : (
        <div className="pointer-events-none sticky bottom-28 z-10 flex justify-center">
          <Button
            variant="outline"
            size="sm"
            className="bg-background pointer-events-auto rounded-full shadow-md"
            data-testid="jump-to-latest"
            onClick={() => scrollToLatest("smooth")}
          >
            <ArrowDown className="size-4" /> Jump to latest
          </Button>
        </div>
      )}
      <Form
        ref={barRef}
        className="border-border bg-background sticky bottom-0 z-10 flex gap-2 border-t py-3"
        onSubmit={() => {
          const text = input.trim();
          if (!text || busy) return;
          send(text);
          setInput("");
        }}
      >
        <textarea
          ref={inputRef}
          aria-label="Message"
          data-testid="chat-input"
          className="border-border focus-visible:ring-ring min-h-12 min-w-0 flex-1 resize-y rounded-md border bg-transparent p-2 text-sm focus-visible:ring-2 focus-visible:outline-none"
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
            title="Refine what Cairn remembers from this chat; what you typed becomes the instructions"
            disabled={busy || refinePending || waiting}
            onClick={() => {
              const instructions = input.trim();
              runRefine(
                () =>
                  requestRefinementAction({
                    chatId,
                    global: refineGlobal,
                    instructions: instructions || undefined,
                  }),
                {
                  onSuccess: () => {
                    if (instructions) setInput("");
                    scrollToLatest();
                    awaitRefinement();
                  },
                  refresh: false,
                },
              );
            }}
          >
            {refinePending ? <Loader2 className="size-3.5 animate-spin" /> : null}
            {input.trim() ? "Refine with this" : "Refine"}
          </Button>
          <ChatAttach
            disabled={busy}
            canAttachToCompany={canRefineGlobally}
            onAttached={(line) =>
              setInput((typed) => (typed.trim() ? `${typed.trimEnd()}\n${line}` : line))
            }
          />
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
          {refineError ? (
            <span className="text-destructive text-xs" role="status">
              {refineError}
            </span>
          ) : null}
        </div>
        {busy ? (
          <Button
            type="button"
            variant="outline"
            onClick={() => {
              setStoppedId(messages.at(-1)?.role === "assistant" ? messages.at(-1)!.id : "pending");
              void stop();
            }}
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
      </Form>
    </div>
  );
}

/** Under a message that was kept but not sent: why, and how it gets sent. */
function UnsentNotice({
  modelMissing,
  isAdmin,
  onSend,
  turn,
}: {
  modelMissing: boolean;
  isAdmin: boolean;
  onSend: () => void;
  /** Its turn failed or was stopped: the same state as during the turn, with Retry. */
  turn: { status: "failed" | "aborted"; error: string | null } | null;
}) {
  if (turn && !modelMissing)
    return (
      <div className="flex flex-wrap items-center gap-2 text-sm" data-testid="chat-error">
        <span className={turn.status === "failed" ? "text-destructive" : "text-muted-foreground"}>
          {turn.status === "failed" ? failedReplyText(turn.error) : "Stopped. Nothing was saved."}
        </span>
        <Button variant="outline" size="sm" data-testid="retry" onClick={onSend}>
          <RotateCcw className="size-3.5" /> Retry
        </Button>
      </div>
    );
  return (
    <div
      className="flex flex-wrap items-center justify-end gap-2 text-sm"
      data-testid="message-unsent"
      data-model-missing={modelMissing ? "true" : "false"}
    >
      <span className="text-muted-foreground">
        {modelMissing ? "Not sent — no model is connected." : "Not sent yet."}
      </span>
      {modelMissing ? (
        isAdmin ? (
          <Link className="underline" href={CONNECT_MODEL_HREF} data-testid="unsent-connect-model">
            Connect a model
          </Link>
        ) : (
          <span data-testid="unsent-ask-admin">Ask an admin to connect a model.</span>
        )
      ) : null}
      <Button variant="outline" size="sm" data-testid="send-unsent" onClick={onSend}>
        <SendHorizontal className="size-3.5" /> Send
      </Button>
    </div>
  );
}

/** A failed send: its message in plain words, and Retry unless nothing was stored (409). */
function ChatError({ error, onRetry }: { error: Error; onRetry?: () => void }) {
  const { message, busy } = describeChatError(error);
  return (
    <div
      className="flex flex-wrap items-center gap-2 text-sm"
      data-testid="chat-error"
      data-busy={busy || undefined}
    >
      <span className="text-destructive">{busy ? message : failedReplyText(message)}</span>
      {busy || !onRetry ? null : (
        <Button variant="outline" size="sm" data-testid="retry" onClick={onRetry}>
          <RotateCcw className="size-3.5" /> Retry
        </Button>
      )}
    </div>
  );
}
