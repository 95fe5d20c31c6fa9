import { EmptyState } from "@/components/empty-state";

export default function ChatPage() {
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">Chat</h1>
      <EmptyState title="Nothing here yet">
        Chat with an agent that remembers arrives with the chat feature.
      </EmptyState>
    </div>
  );
}
