"use client";

import { useState } from "react";
import { saveRetentionAction } from "@/app/(app)/admin/settings/retention-actions";
import { Button } from "@/components/ui/button";
import { Form } from "@/components/ui/form";
import { FormMessage } from "@/components/ui/form-message";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { useAction } from "@/lib/actions/use-action";
import type { RetentionSettingsValues } from "@/lib/erasure";

/** Days as the input shows them: empty for forever. */
const shown = (days: number | null) => (days === null ? "" : String(days));
const parsed = (text: string) => (text.trim() === "" ? null : Number(text));

/** Admin → Settings → Retention: how long chats and audit events are kept (empty: forever). */
export function RetentionForm({ initial }: { initial: RetentionSettingsValues }) {
  const [chatDays, setChatDays] = useState(shown(initial.chatRetentionDays));
  const [auditDays, setAuditDays] = useState(shown(initial.auditRetentionDays));
  const [saved, setSaved] = useState(false);
  const { pending, error, fieldErrors, run } = useAction();
  return (
    <section className="max-w-lg space-y-3" data-testid="retention">
      <h2 className="font-medium">Retention</h2>
      <Form
        className="space-y-4"
        onSubmit={() => {
          setSaved(false);
          run(
            () =>
              saveRetentionAction({
                chatRetentionDays: parsed(chatDays),
                auditRetentionDays: parsed(auditDays),
              }),
            { onSuccess: () => setSaved(true), refresh: false },
          );
        }}
      >
        <div className="space-y-2">
          <Label htmlFor="chatRetentionDays">Delete chats idle for more than (days)</Label>
          <Input
            id="chatRetentionDays"
            type="number"
            min={1}
            placeholder="Keep forever"
            value={chatDays}
            onChange={(event) => setChatDays(event.target.value)}
            data-testid="chat-retention-days"
          />
          <p className="text-muted-foreground text-xs">
            Empty keeps chats forever. With a number, a job deletes every chat nobody has used for
            that many days — its messages, turns and chat notes with their history — within the
            hour. Memory files and company knowledge are not chats and stay.
          </p>
          <FormMessage message={fieldErrors?.chatRetentionDays?.[0]} />
        </div>
        <div className="space-y-2">
          <Label htmlFor="auditRetentionDays">Delete audit events older than (days)</Label>
          <Input
            id="auditRetentionDays"
            type="number"
            min={1}
            placeholder="Keep forever"
            value={auditDays}
            onChange={(event) => setAuditDays(event.target.value)}
            data-testid="audit-retention-days"
          />
          <p className="text-muted-foreground text-xs">
            Empty keeps the audit log forever. Nobody can edit or delete an audit event; only this
            setting removes old ones.
          </p>
          <FormMessage message={fieldErrors?.auditRetentionDays?.[0]} />
        </div>
        <div className="flex items-center gap-3">
          <Button type="submit" disabled={pending} data-testid="save-retention">
            Save retention
          </Button>
          {saved ? (
            <span className="text-muted-foreground text-sm" role="status">
              Saved.
            </span>
          ) : null}
        </div>
        <FormMessage message={error} />
      </Form>
    </section>
  );
}
