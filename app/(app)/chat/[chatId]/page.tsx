import { headers } from "next/headers";
import Link from "next/link";
import { notFound } from "next/navigation";
import { ImagePolicyProvider } from "@/components/chat/assistant-markdown";
import { ChatView } from "@/components/chat/chat-view";
import { ContextPanel } from "@/components/chat/context-panel";
import { getChatModel } from "@/lib/ai";
import { requireActor } from "@/lib/auth";
import { getTurnForActor, latestTurnId, listInterruptedTurns, loadChatMessages } from "@/lib/chat";
import { getDb } from "@/lib/db";
import { canWriteGlobal } from "@/lib/harness";
import { getOwnChat } from "@/lib/harness-service";
import { refinementStore } from "@/lib/refinements";
import { firstSearchValues, type RawSearchParams } from "@/lib/search-params";
import { imageOriginsFromEnv, requestOrigin } from "@/lib/security";

export const dynamic = "force-dynamic";

export default async function ChatPage(props: {
  params: Promise<{ chatId: string }>;
  searchParams: Promise<RawSearchParams>;
}) {
  const actor = await requireActor();
  const { chatId } = await props.params;
  const chat = await getOwnChat(actor, chatId);
  if (!chat) notFound();
  const { turn: selected } = firstSearchValues(await props.searchParams);
  const [messages, model, turnId, refinements, interruptedTurns] = await Promise.all([
    loadChatMessages(getDb(), chat.id),
    getChatModel(),
    selected ? Promise.resolve(selected) : latestTurnId(chat.id),
    refinementStore().listRefinements({
      workspaceId: actor.workspaceId,
      filter: { chatId: chat.id },
      limit: 20,
    }),
    listInterruptedTurns(chat.id),
  ]);
  const turn = turnId ? await getTurnForActor(actor, turnId) : null;
  const appOrigin = requestOrigin({ headers: await headers() });
  return (
    <div className="grid gap-6 lg:grid-cols-[1fr_320px]">
      <div className="space-y-4">
        <div className="flex items-center justify-between">
          <h1 className="text-xl font-semibold" data-testid="chat-title">
            {chat.title}
          </h1>
          <Link className="text-sm underline" href={`/harness?chat=${chat.id}`}>
            Harness of this chat
          </Link>
        </div>
        {model.status === "ready" ? (
          <ImagePolicyProvider appOrigin={appOrigin} imageOrigins={imageOriginsFromEnv()}>
            <ChatView
              chatId={chat.id}
              initialMessages={messages}
              refinements={refinements.items}
              canRefineGlobally={canWriteGlobal(actor)}
              interruptedTurns={interruptedTurns}
            />
          </ImagePolicyProvider>
        ) : (
          <div
            className="space-y-3 rounded-lg border border-amber-500/50 p-4 text-sm"
            data-testid="model-unavailable"
          >
            <p className="font-medium">{model.message}</p>
            {model.help.map((help) => (
              <div key={help.title}>
                <p className="font-medium">{help.title}</p>
                <pre className="bg-muted mt-1 rounded p-2 text-xs whitespace-pre-wrap">
                  {help.lines.join("\n")}
                </pre>
              </div>
            ))}
          </div>
        )}
      </div>
      <ContextPanel turn={turn} />
    </div>
  );
}
