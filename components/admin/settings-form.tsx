"use client";

import { useState } from "react";
import { saveSettingsAction } from "@/app/(app)/admin/settings/actions";
import { Button } from "@/components/ui/button";
import { Form } from "@/components/ui/form";
import { FormMessage } from "@/components/ui/form-message";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { useAction } from "@/lib/actions/use-action";
import type { WorkspaceSettingsValues } from "@/lib/workspace-settings";

export function SettingsForm({ initial }: { initial: WorkspaceSettingsValues }) {
  const [values, setValues] = useState(initial);
  const [saved, setSaved] = useState(false);
  const { pending, error, run } = useAction();
  const number = (
    field:
      | "tokenBudget"
      | "refineEveryTurns"
      | "refineCooldownMinutes"
      | "feedbackRefineThreshold"
      | "feedbackJudgeAfter",
  ) => ({
    id: field,
    type: "number",
    value: values[field],
    onChange: (event: { target: { value: string } }) =>
      setValues((current) => ({ ...current, [field]: Number(event.target.value) })),
  });
  return (
    <Form
      className="max-w-lg space-y-4"
      data-testid="settings-form"
      onSubmit={() => {
        setSaved(false);
        run(() => saveSettingsAction(values), { onSuccess: () => setSaved(true), refresh: false });
      }}
    >
      <div className="space-y-2">
        <Label htmlFor="tokenBudget">Harness view token budget per prompt</Label>
        <Input {...number("tokenBudget")} min={500} max={64000} />
        <p className="text-muted-foreground text-xs">
          How much of every prompt the harness view (notes, memories, skills) may take, in tokens.
          Larger gives the agent more to go on and costs more per message; entries that do not fit
          are left out, least relevant first.
        </p>
      </div>
      <div className="space-y-2">
        <Label htmlFor="refineEveryTurns">
          Review for refinement every N assistant turns (0 = off)
        </Label>
        <Input {...number("refineEveryTurns")} min={0} />
        <p className="text-muted-foreground text-xs">
          After this many replies in a chat, a quick review decides whether anything is worth
          remembering or correcting, and if so refines. 0 turns automatic reviews off; people can
          still press Refine or type /refine.
        </p>
      </div>
      <div className="space-y-2">
        <Label htmlFor="refineCooldownMinutes">Cooldown between reviews (minutes)</Label>
        <Input {...number("refineCooldownMinutes")} min={0} />
        <p className="text-muted-foreground text-xs">
          The least time between two automatic reviews of the same chat, so a busy chat does not
          trigger one after another.
        </p>
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
      <p className="text-muted-foreground -mt-3 pl-6 text-xs">
        When a long chat is summarised to fit the model&apos;s context, review it first so nothing
        worth keeping is lost with the older messages.
      </p>
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
      <p className="text-muted-foreground -mt-3 pl-6 text-xs">
        A refinement that would change what the whole workspace sees waits on the Refinements page
        until an editor or admin approves it. Changes local to one chat apply at once.
      </p>
      <div className="space-y-2">
        <Label htmlFor="feedbackRefineThreshold">Review after N thumbs-down (0 = off)</Label>
        <Input {...number("feedbackRefineThreshold")} min={0} />
        <p className="text-muted-foreground text-xs">
          This many answers rated down in one chat since its last refinement start a review with the
          rated answers, comments and reasons as evidence. Across the workspace, an editor&apos;s or
          admin&apos;s rating can start a global review the same way.
        </p>
      </div>
      <div className="space-y-2">
        <Label htmlFor="feedbackJudgeAfter">Judge a refinement after N rated answers</Label>
        <Input {...number("feedbackJudgeAfter")} min={1} />
        <p className="text-muted-foreground text-xs">
          Once this many answers after a refinement are rated, its expected outcome is marked
          supported or not supported from the share rated good (a person can still give a verdict).
        </p>
      </div>
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          data-testid="feedback-guard-rail"
          checked={values.feedbackGuardRail}
          onChange={(event) =>
            setValues((current) => ({ ...current, feedbackGuardRail: event.target.checked }))
          }
        />
        Guard rail: flag refinements after which answers got worse
      </label>
      <p className="text-muted-foreground -mt-3 pl-6 text-xs">
        A refinement whose share of good answers fell below the one before it by more than the 95%
        intervals allow is flagged on the Refinements page with a one-click rollback. Nothing is
        rolled back by itself.
      </p>
      <FormMessage message={error ?? (saved ? "Saved." : null)} tone={error ? "error" : "info"} />
      <Button type="submit" disabled={pending} data-testid="save-settings">
        Save settings
      </Button>
    </Form>
  );
}
