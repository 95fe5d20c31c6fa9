"use client";

import { useState, useTransition } from "react";
import { saveSettingsAction } from "@/app/(app)/admin/settings/actions";
import { Button } from "@/components/ui/button";
import { FormMessage } from "@/components/ui/form-message";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import type { WorkspaceSettingsValues } from "@/lib/workspace-settings";

export function SettingsForm({ initial }: { initial: WorkspaceSettingsValues }) {
  const [values, setValues] = useState(initial);
  const [message, setMessage] = useState<{ tone: "error" | "info"; text: string } | null>(null);
  const [pending, startTransition] = useTransition();
  const number = (field: "tokenBudget" | "refineEveryTurns" | "refineCooldownMinutes") => ({
    id: field,
    type: "number",
    value: values[field],
    onChange: (event: { target: { value: string } }) =>
      setValues((current) => ({ ...current, [field]: Number(event.target.value) })),
  });
  return (
    <form
      className="max-w-lg space-y-4"
      data-testid="settings-form"
      onSubmit={(event) => {
        event.preventDefault();
        startTransition(async () => {
          const result = await saveSettingsAction(values);
          setMessage(
            result.ok ? { tone: "info", text: "Saved." } : { tone: "error", text: result.error },
          );
        });
      }}
    >
      <div className="space-y-2">
        <Label htmlFor="tokenBudget">Harness view token budget per prompt</Label>
        <Input {...number("tokenBudget")} min={500} max={64000} />
      </div>
      <div className="space-y-2">
        <Label htmlFor="refineEveryTurns">
          Review for refinement every N assistant turns (0 = off)
        </Label>
        <Input {...number("refineEveryTurns")} min={0} />
      </div>
      <div className="space-y-2">
        <Label htmlFor="refineCooldownMinutes">Cooldown between reviews (minutes)</Label>
        <Input {...number("refineCooldownMinutes")} min={0} />
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          checked={values.refineAfterCompaction}
          onChange={(event) =>
            setValues((current) => ({ ...current, refineAfterCompaction: event.target.checked }))
          }
        />
        Review after a context compaction
      </label>
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          data-testid="needs-approval"
          checked={values.globalRefineNeedsApproval}
          onChange={(event) =>
            setValues((current) => ({
              ...current,
              globalRefineNeedsApproval: event.target.checked,
            }))
          }
        />
        Global refinements need approval by an editor or admin
      </label>
      <FormMessage message={message?.text} tone={message?.tone} />
      <Button type="submit" disabled={pending} data-testid="save-settings">
        Save settings
      </Button>
    </form>
  );
}
