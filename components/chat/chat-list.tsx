"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, useTransition } from "react";
import { createChatAction, renameChatAction } from "@/app/(app)/chat/actions";
import { Button } from "@/components/ui/button";
import { FormMessage } from "@/components/ui/form-message";
import { Input } from "@/components/ui/input";

export function NewChatForm() {
  const router = useRouter();
  const [title, setTitle] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  return (
    <form
      className="flex items-center gap-2"
      onSubmit={(event) => {
        event.preventDefault();
        startTransition(async () => {
          const result = await createChatAction({ title: title.trim() || undefined });
          if (!result.ok) return setError(result.error);
          setTitle("");
          setError(null);
          router.push(`/chat/${result.chatId}`);
        });
      }}
    >
      <Input
        aria-label="Chat title"
        data-testid="new-chat-title"
        placeholder="New chat title"
        value={title}
        onChange={(event) => setTitle(event.target.value)}
        className="max-w-xs"
      />
      <Button type="submit" disabled={pending} data-testid="new-chat">
        New chat
      </Button>
      <FormMessage message={error} />
    </form>
  );
}

export function ChatRow({ chatId, title }: { chatId: string; title: string }) {
  const router = useRouter();
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(title);
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  return (
    <li
      className="border-border flex items-center justify-between gap-2 border-t py-2"
      data-testid="chat-row"
    >
      {editing ? (
        <form
          className="flex items-center gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            startTransition(async () => {
              const result = await renameChatAction({ chatId, title: value });
              if (!result.ok) return setError(result.error);
              setEditing(false);
              router.refresh();
            });
          }}
        >
          <Input
            aria-label="Chat title"
            value={value}
            onChange={(event) => setValue(event.target.value)}
          />
          <Button type="submit" size="sm" disabled={pending}>
            Save
          </Button>
          <FormMessage message={error} />
        </form>
      ) : (
        <Link className="hover:underline" href={`/chat/${chatId}`} data-testid="chat-link">
          {title}
        </Link>
      )}
      <span className="flex gap-2 text-sm">
        <Link className="underline" href={`/harness?chat=${chatId}`}>
          Harness
        </Link>
        <button type="button" className="underline" onClick={() => setEditing((value) => !value)}>
          Rename
        </button>
      </span>
    </li>
  );
}
