"use client";

import { useState } from "react";
import { createEntryAction, updateEntryAction } from "@/app/(app)/harness/actions";
import { Button } from "@/components/ui/button";
import { Form } from "@/components/ui/form";
import { FormMessage } from "@/components/ui/form-message";
import { Input, Select } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { useAction } from "@/lib/actions/use-action";
import { entryHref } from "./entry-href";

type Kind = "prompt" | "memory" | "skill" | "subagent";

export interface EntryFormValues {
  kind: Kind;
  title: string;
  content: string;
  path: string;
  name: string;
  description: string;
  tools: string;
  model: string;
}

const kindLabels: Record<Kind, string> = {
  memory: "Memory",
  prompt: "Prompt note",
  skill: "Skill",
  subagent: "Sub-agent",
};

const contentLabel: Record<Kind, string> = {
  prompt: "Instruction",
  memory: "Content",
  skill: "Body (loaded on demand)",
  subagent: "Instructions (its system prompt)",
};

/**
 * Create (no `existing`) or edit an entry. Location choices come from the server: the chats
 * of the user, and whether they may write global entries.
 */
export function EntryForm(props: {
  chats: { id: string; title: string }[];
  canWriteGlobal: boolean;
  initial?: Partial<EntryFormValues>;
  defaultChatId?: string;
  existing?: { id: string; version: number; scope: "local" | "global"; chatId: string | null };
}) {
  const [values, setValues] = useState<EntryFormValues>({
    kind: "memory",
    title: "",
    content: "",
    path: "",
    name: "",
    description: "",
    tools: "",
    model: "",
    ...props.initial,
  });
  const [location, setLocation] = useState<string>(
    props.existing
      ? props.existing.scope === "global"
        ? "global"
        : `chat:${props.existing.chatId}`
      : props.defaultChatId
        ? `chat:${props.defaultChatId}`
        : // An editor or admin starts from global (issue 26); a member, who cannot write
          // global entries, from their latest chat.
          props.canWriteGlobal
          ? "global"
          : props.chats[0]
            ? `chat:${props.chats[0].id}`
            : "",
  );
  const [reason, setReason] = useState("");
  const { error, pending, run, router } = useAction();
  const set = (field: keyof EntryFormValues) => (event: { target: { value: string } }) =>
    setValues((current) => ({ ...current, [field]: event.target.value }));
  const named = values.kind === "skill" || values.kind === "subagent";
  const locationLabel =
    location === "global"
      ? "Global — whole workspace"
      : `Local — ${props.chats.find((chat) => `chat:${chat.id}` === location)?.title ?? "a chat"}`;

  function submit() {
    const where =
      location === "global"
        ? ({ scope: "global" } as const)
        : ({ scope: "local", chatId: location.slice("chat:".length) } as const);
    const fields = {
      kind: values.kind,
      location: where,
      title: named ? undefined : values.title,
      content: values.content,
      path: values.path,
      name: named ? values.name : undefined,
      description: named ? values.description : undefined,
      tools:
        values.kind === "subagent"
          ? values.tools
              .split(",")
              .map((tool) => tool.trim())
              .filter(Boolean)
          : undefined,
      model: values.kind === "subagent" ? values.model : undefined,
    };
    const existing = props.existing;
    run(
      () =>
        existing
          ? updateEntryAction({
              ...fields,
              id: existing.id,
              expectedVersion: existing.version,
              reason: reason || undefined,
            })
          : createEntryAction(fields),
      {
        onSuccess: ({ entry }) => {
          // The entry page says "Saved" for the version in `saved` (the form remounts per version).
          if (entry) router.push(`${entryHref(entry)}&saved=${entry.version}`, { scroll: false });
        },
      },
    );
  }

  return (
    <Form className="space-y-4" data-testid="entry-form" onSubmit={submit}>
      <div className="grid gap-4 sm:grid-cols-3">
        {props.existing ? (
          <>
            <div className="grid min-w-0 content-start gap-2">
              <span className="text-sm leading-none font-medium">Kind</span>
              <p className="flex h-9 items-center text-sm" data-testid="entry-kind-fixed">
                {kindLabels[values.kind]}
              </p>
            </div>
            <div className="grid min-w-0 content-start gap-2">
              <span className="text-sm leading-none font-medium">Scope</span>
              <p className="flex h-9 items-center text-sm" data-testid="entry-scope-fixed">
                {locationLabel}
              </p>
            </div>
          </>
        ) : (
          <>
            <div className="grid min-w-0 content-start gap-2">
              <Label htmlFor="entry-kind">Kind</Label>
              <Select id="entry-kind" className="w-full" value={values.kind} onChange={set("kind")}>
                {(Object.keys(kindLabels) as Kind[]).map((kind) => (
                  <option key={kind} value={kind}>
                    {kindLabels[kind]}
                  </option>
                ))}
              </Select>
            </div>
            <div className="grid min-w-0 content-start gap-2">
              <Label htmlFor="entry-location">Scope</Label>
              <Select
                id="entry-location"
                className="w-full"
                value={location}
                onChange={(event) => setLocation(event.target.value)}
              >
                {props.chats.map((chat) => (
                  <option key={chat.id} value={`chat:${chat.id}`}>
                    Local — {chat.title}
                  </option>
                ))}
                {props.canWriteGlobal ? (
                  <option value="global">Global — whole workspace</option>
                ) : null}
              </Select>
            </div>
          </>
        )}
        <div className="grid min-w-0 content-start gap-2">
          <Label htmlFor="entry-path">Path</Label>
          <Input id="entry-path" placeholder="general" value={values.path} onChange={set("path")} />
        </div>
      </div>
      {props.existing ? (
        <p className="text-muted-foreground -mt-2 text-xs">
          Kind and scope are fixed once an entry exists. To change them, create a new entry and
          delete this one.
        </p>
      ) : null}
      {named ? (
        <>
          <div className="grid min-w-0 gap-2">
            <Label htmlFor="entry-name">Name</Label>
            <Input id="entry-name" value={values.name} onChange={set("name")} required />
          </div>
          <div className="grid min-w-0 gap-2">
            <Label htmlFor="entry-description">When to use it (one line)</Label>
            <Input
              id="entry-description"
              value={values.description}
              onChange={set("description")}
              required
            />
          </div>
        </>
      ) : (
        <div className="grid min-w-0 gap-2">
          <Label htmlFor="entry-title">Title</Label>
          <Input id="entry-title" value={values.title} onChange={set("title")} required />
        </div>
      )}
      {values.kind === "subagent" ? (
        <div className="flex flex-wrap gap-4">
          <div className="grid min-w-0 flex-1 gap-2">
            <Label htmlFor="entry-tools">Tools (comma-separated)</Label>
            <Input id="entry-tools" value={values.tools} onChange={set("tools")} />
          </div>
          <div className="grid min-w-0 gap-2">
            <Label htmlFor="entry-model">Model (optional)</Label>
            <Input id="entry-model" value={values.model} onChange={set("model")} />
          </div>
        </div>
      ) : null}
      <div className="grid min-w-0 gap-2">
        <Label htmlFor="entry-content">{contentLabel[values.kind]}</Label>
        <textarea
          id="entry-content"
          className="border-border focus-visible:ring-ring min-h-40 w-full rounded-md border bg-transparent p-3 font-mono text-sm focus-visible:ring-2 focus-visible:outline-none"
          value={values.content}
          onChange={set("content")}
          required
        />
      </div>
      {props.existing ? (
        <div className="grid min-w-0 gap-2">
          <Label htmlFor="entry-reason">Reason for the change (optional)</Label>
          <Input
            id="entry-reason"
            value={reason}
            onChange={(event) => setReason(event.target.value)}
          />
        </div>
      ) : null}
      <FormMessage message={error} />
      <Button type="submit" disabled={pending || location === ""} data-testid="save-entry">
        {props.existing ? "Save changes" : "Create entry"}
      </Button>
      {location === "" ? (
        <p className="text-muted-foreground text-sm">
          Create a chat first: members keep entries local to their chats.
        </p>
      ) : null}
    </Form>
  );
}
