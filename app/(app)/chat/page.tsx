import { ChatRow, NewChatForm } from "@/components/chat/chat-list";
import { EmptyState } from "@/components/empty-state";
import { requireActor } from "@/lib/auth";
import { listChats } from "@/lib/harness-service";

export const dynamic = "force-dynamic";

export default async function ChatPage() {
  const actor = await requireActor();
  const chats = await listChats(actor);
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">Chats</h1>
        <p className="text-muted-foreground text-sm">
          Each chat has its own local harness entries. The conversation view arrives with the chat
          feature.
        </p>
      </div>
      <NewChatForm />
      {chats.length === 0 ? (
        <EmptyState title="No chats yet">
          Create one to keep local notes and memories for it.
        </EmptyState>
      ) : (
        <ul data-testid="chat-list">
          {chats.map((chat) => (
            <ChatRow key={chat.id} chatId={chat.id} title={chat.title} />
          ))}
        </ul>
      )}
    </div>
  );
}
