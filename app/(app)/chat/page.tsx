import { StartChatForm } from "@/components/chat/chat-list";
import { requireActor } from "@/lib/auth";

export const metadata = { title: "New chat" };

export const dynamic = "force-dynamic";

export default async function ChatPage() {
  await requireActor();
  return (
    <div className="mx-auto max-w-2xl space-y-6 pt-2 lg:pt-16">
      <div className="space-y-2 text-center">
        <h1 className="text-2xl font-semibold">What can I help with?</h1>
        <p className="text-muted-foreground text-sm">
          Type to start a chat. Cairn remembers what matters across chats; each chat also keeps its
          own notes.
        </p>
      </div>
      <StartChatForm />
    </div>
  );
}
