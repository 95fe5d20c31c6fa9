import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { notFound } from "next/navigation";
import { ImagePolicyProvider } from "@/components/chat/assistant-markdown";
import { ChatView } from "@/components/chat/chat-view";
import { ContextPanel } from "@/components/chat/context-panel";
import { Badge } from "@/components/ui/badge";
import { ModelMissingNotice } from "@/components/chat/model-missing";
import { ScrollToMessage } from "@/components/search/scroll-to-message";
import { getChatModel } from "@/lib/ai";
import { getActor, requireActor } from "@/lib/auth";
import { canWriteGlobal } from "@/lib/auth/permissions";
import {
  getTurnForActor,
  lastUnansweredTurn,
  latestTurnId,
  listInterruptedTurns,
} from "@/lib/chat";
import { getOwnChat, loadChatPageMessages } from "@/lib/chat/queries";
import { listChatRatings } from "@/lib/feedback";
import { refinementStore } from "@/lib/refinement-runs";
import { findRollbacksOf } from "@/lib/refinement-runs/queries";
import { firstSearchValues, type RawSearchParams } from "@/lib/search-params";
import { configuredImageOrigins, requestOrigin } from "@/lib/security";

export const dynamic = "force-dynamic";

/** The tab reads the chat's title. */
export async function generateMetadata(props: {
  params: Promise<{ chatId: string }>;
}): Promise<Metadata> {
  const actor = await getActor();
  const chat = actor ? await getOwnChat(actor, (await props.params).chatId) : null;
  return { title: chat?.title ?? "Chat" };
}

export default async function ChatPage(props: {
  params: Promise<{ chatId: string }>;
  searchParams: Promise<RawSearchParams>;
}) {
  const actor = await requireActor();
  const { chatId } = await props.params;
  const chat = await getOwnChat(actor, chatId);
  if (!chat) notFound();
  const { turn: selected, m: searchedMessage } = firstSearchValues(await props.searchParams);
  const [
    [messages, messageTimes],
    model,
    turnId,
    refinements,
    interruptedTurns,
    unanswered,
    ratings,
  ] = await Promise.all([
    loadChatPageMessages(chat.id),
    getChatModel({ workspaceId: actor.workspaceId }),
    selected ? Promise.resolve(selected) : latestTurnId(chat.id),
    refinementStore().listRefinements({
      workspaceId: actor.workspaceId,
      filter: { chatId: chat.id },
      limit: 20,
    }),
    listInterruptedTurns(chat.id),
    lastUnansweredTurn(chat.id),
    listChatRatings(chat.id),
  ]);
  const [turn, rollbacks] = await Promise.all([
    turnId ? getTurnForActor(actor, turnId) : Promise.resolve(null),
    findRollbacksOf({ actor, ids: refinements.items.map((refinement) => refinement.id) }),
  ]);
  const appOrigin = requestOrigin({ headers: await headers() });
  return (
    <div className="grid gap-6 xl:grid-cols-[minmax(0,1fr)_300px]">
      <div className="min-w-0 space-y-4">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <div className="flex min-w-0 items-center gap-3">
            <Link
              className="text-muted-foreground text-sm whitespace-nowrap lg:hidden"
              href="/chat"
            >
              ← Chats
            </Link>
            <h1 className="truncate text-xl font-semibold" data-testid="chat-title">
              {chat.title}
            </h1>
          </div>
          {chat.temporary ? (
            <Badge data-testid="temporary-chat-badge">Temporary chat</Badge>
          ) : (
            // This chat's own (local) entries, not the whole Harness page (issue 26).
            <Link
              className="inline-flex min-h-11 items-center text-sm underline sm:min-h-0"
              href={`/harness?chat=${chat.id}&scope=local`}
              data-testid="chat-notes-link"
            >
              This chat’s notes
            </Link>
          )}
        </div>
        {chat.temporary ? (
          <p
            className="border-border text-muted-foreground rounded-md border border-dashed px-3 py-2 text-sm"
            data-testid="temporary-chat-notice"
          >
            Temporary chat: Cairn does not read or write your memory, company knowledge or notes
            here. It is not listed once you leave it, and it is deleted 24 hours after it started.
          </p>
        ) : null}
        {model.status === "ready" ? null : (
          <ModelMissingNotice isAdmin={actor.role === "admin"} detail={model.message} />
        )}
        <ImagePolicyProvider appOrigin={appOrigin} imageOrigins={configuredImageOrigins()}>
          <ChatView
            chatId={chat.id}
            initialMessages={messages}
            messageTimes={messageTimes}
            refinements={refinements.items}
            rolledBack={Object.fromEntries(rollbacks)}
            canRefineGlobally={canWriteGlobal(actor)}
            interruptedTurns={interruptedTurns}
            modelReady={model.status === "ready"}
            isAdmin={actor.role === "admin"}
            unansweredTurn={unanswered}
            ratings={ratings}
            temporary={chat.temporary}
          />
          <ScrollToMessage messageId={searchedMessage} />
        </ImagePolicyProvider>
      </div>
      <div className="min-w-0 xl:sticky xl:top-4 xl:self-start">
        <ContextPanel turn={turn} />
      </div>
    </div>
  );
}
