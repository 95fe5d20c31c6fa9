"use client";

import { useState, type ReactNode } from "react";
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

/** A number of days, empty for forever; `children` explain what goes when. */
function DaysField(props: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  testId: string;
  error: string | undefined;
  children: ReactNode;
}) {
  return (
    <div className="space-y-2">
      <Label htmlFor={props.id}>{props.label}</Label>
      <Input
        id={props.id}
        type="number"
        min={1}
        placeholder="Keep forever"
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
        data-testid={props.testId}
      />
      <p className="text-muted-foreground text-xs">{props.children}</p>
      <FormMessage message={props.error} />
    </div>
  );
}

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
        <DaysField
          id="chatRetentionDays"
          label="Delete chats idle for more than (days)"
          value={chatDays}
          onChange={setChatDays}
          testId="chat-retention-days"
          error={fieldErrors?.chatRetentionDays?.[0]}
        >
          Empty keeps chats forever. With a number, a job deletes every chat nobody has used for
          that many days — its messages, turns and chat notes with their history — within the hour.
          Memory files and company knowledge are not chats and stay.
        </DaysField>
        <DaysField
          id="auditRetentionDays"
          label="Delete audit events older than (days)"
          value={auditDays}
          onChange={setAuditDays}
          testId="audit-retention-days"
          error={fieldErrors?.auditRetentionDays?.[0]}
        >
          Empty keeps the audit log forever. Nobody can edit or delete an audit event; only this
          setting removes old ones.
        </DaysField>
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
