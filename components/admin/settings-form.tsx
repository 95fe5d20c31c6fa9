"use client";

import { useState, type ReactNode } from "react";
import { saveSettingsAction } from "@/app/(app)/admin/settings/actions";
import { Button } from "@/components/ui/button";
import { Form } from "@/components/ui/form";
import { FormMessage } from "@/components/ui/form-message";
import { TextField } from "@/components/ui/text-field";
import { useAction } from "@/lib/actions/use-action";
import { formatBytes } from "@/lib/harness/format-bytes";
import type { WorkspaceSettingsValues } from "@/lib/workspace-settings";

type NumberField =
  | "tokenBudget"
  | "refineEveryTurns"
  | "refineCooldownMinutes"
  | "feedbackRefineThreshold"
  | "feedbackJudgeAfter";
type SwitchField = "refineAfterCompaction" | "globalRefineNeedsApproval" | "feedbackGuardRail";
type LimitField =
  | "companyMaxFiles"
  | "companyMaxBytes"
  | "companyMaxFileBytes"
  | "memoryMaxFiles"
  | "memoryMaxBytes"
  | "memoryMaxFileBytes";

/** The server's dir limits (`CAIRN_DIR_MAX_*`): each field's default and the most it may be. */
export interface ServerDirLimits {
  maxFiles: number;
  maxDirBytes: number;
  maxFileBytes: number;
}

/** A checkbox with its label beside it and a hint tucked under both (in a `space-y-4` form). */
function CheckboxField(props: {
  label: string;
  hint: ReactNode;
  checked: boolean;
  onCheckedChange: (checked: boolean) => void;
  testId?: string;
}) {
  return (
    <>
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          data-testid={props.testId}
          checked={props.checked}
          onChange={(event) => props.onCheckedChange(event.target.checked)}
        />
        {props.label}
      </label>
      <p className="text-muted-foreground -mt-3 pl-6 text-xs">{props.hint}</p>
    </>
  );
}

/** The dir limit fields in the order shown: which server limit caps each, its unit, its label. */
const LIMIT_FIELDS: readonly {
  field: LimitField;
  server: keyof ServerDirLimits;
  unit: "files" | "bytes";
  label: string;
}[] = [
  {
    field: "companyMaxFiles",
    server: "maxFiles",
    unit: "files",
    label: "Company knowledge: files",
  },
  {
    field: "companyMaxBytes",
    server: "maxDirBytes",
    unit: "bytes",
    label: "Company knowledge: total size (bytes)",
  },
  {
    field: "companyMaxFileBytes",
    server: "maxFileBytes",
    unit: "bytes",
    label: "Company knowledge: size per file (bytes)",
  },
  {
    field: "memoryMaxFiles",
    server: "maxFiles",
    unit: "files",
    label: "Each person's memory: files",
  },
  {
    field: "memoryMaxBytes",
    server: "maxDirBytes",
    unit: "bytes",
    label: "Each person's memory: total size (bytes)",
  },
  {
    field: "memoryMaxFileBytes",
    server: "maxFileBytes",
    unit: "bytes",
    label: "Each person's memory: size per file (bytes)",
  },
];

export function SettingsForm({
  initial,
  serverLimits,
}: {
  initial: WorkspaceSettingsValues;
  serverLimits: ServerDirLimits;
}) {
  const [values, setValues] = useState(initial);
  // The limit fields as typed: empty means the server's default; the server checks the rest.
  const [limits, setLimits] = useState(() => {
    const typed = {} as Record<LimitField, string>;
    for (const { field } of LIMIT_FIELDS) typed[field] = initial[field]?.toString() ?? "";
    return typed;
  });
  const [saved, setSaved] = useState(false);
  const { pending, error, fieldErrors, run } = useAction();
  const limit = (field: LimitField, server: number, unit: "files" | "bytes") => ({
    id: field,
    type: "number",
    inputMode: "numeric" as const,
    min: 1,
    max: server,
    step: 1,
    value: limits[field],
    placeholder: `${server} (server default)`,
    "data-testid": `limit-${field}`,
    error: fieldErrors?.[field]?.[0],
    hint:
      unit === "bytes"
        ? `${/^\d+$/.test(limits[field]) ? `${formatBytes(Number(limits[field]))}. ` : ""}Bytes; empty: the server's ${formatBytes(server)}, which is also the most allowed.`
        : `Empty: the server's ${server.toLocaleString("en")}, which is also the most allowed.`,
    onValueChange: (value: string) => setLimits((current) => ({ ...current, [field]: value })),
  });
  const number = (field: NumberField) => ({
    id: field,
    type: "number",
    value: values[field],
    onValueChange: (value: string) =>
      setValues((current) => ({ ...current, [field]: Number(value) })),
  });
  const checkbox = (field: SwitchField) => ({
    checked: values[field],
    onCheckedChange: (checked: boolean) =>
      setValues((current) => ({ ...current, [field]: checked })),
  });
  return (
    <Form
      className="max-w-lg space-y-4"
      data-testid="settings-form"
      onSubmit={() => {
        setSaved(false);
        run(() => saveSettingsAction({ ...values, ...limits }), {
          onSuccess: () => setSaved(true),
          refresh: false,
        });
      }}
    >
      <TextField
        {...number("tokenBudget")}
        label="Harness view token budget per prompt"
        min={500}
        max={64000}
        hint="How much of every prompt the harness view (notes, memories, skills) may take, in tokens. Larger gives the agent more to go on and costs more per message; entries that do not fit are left out, least relevant first."
      />
      <TextField
        {...number("refineEveryTurns")}
        label="Review for refinement every N assistant turns (0 = off)"
        min={0}
        hint="After this many replies in a chat, a quick review decides whether anything is worth remembering or correcting, and if so refines. 0 turns automatic reviews off; people can still press Refine or type /refine."
      />
      <TextField
        {...number("refineCooldownMinutes")}
        label="Cooldown between reviews (minutes)"
        min={0}
        hint="The least time between two automatic reviews of the same chat, so a busy chat does not trigger one after another."
      />
      <CheckboxField
        {...checkbox("refineAfterCompaction")}
        label="Review after a context compaction"
        hint="When a long chat is summarised to fit the model's context, review it first so nothing worth keeping is lost with the older messages."
      />
      <CheckboxField
        {...checkbox("globalRefineNeedsApproval")}
        testId="needs-approval"
        label="Global refinements need approval by an editor or admin"
        hint="A refinement that would change what the whole workspace sees waits on the Refinements page until an editor or admin approves it. Changes local to one chat apply at once."
      />
      <TextField
        {...number("feedbackRefineThreshold")}
        label="Review after N thumbs-down (0 = off)"
        min={0}
        hint="This many answers rated down in one chat since its last refinement start a review with the rated answers, comments and reasons as evidence. Across the workspace, an editor's or admin's rating can start a global review the same way."
      />
      <TextField
        {...number("feedbackJudgeAfter")}
        label="Judge a refinement after N rated answers"
        min={1}
        hint="Once this many answers after a refinement are rated, its expected outcome is marked supported or not supported from the share rated good (a person can still give a verdict)."
      />
      <CheckboxField
        {...checkbox("feedbackGuardRail")}
        testId="feedback-guard-rail"
        label="Guard rail: flag refinements after which answers got worse"
        hint="A refinement whose share of good answers fell below the one before it by more than the 95% intervals allow is flagged on the Refinements page with a one-click rollback. Nothing is rolled back by itself."
      />
      <fieldset className="space-y-4" data-testid="dir-limits">
        <legend className="font-medium">Dir limits</legend>
        <p className="text-muted-foreground text-xs">
          How much company knowledge and each person&apos;s memory may hold in this workspace. Leave
          a field empty for the server&apos;s default; the server&apos;s values
          (CAIRN_DIR_MAX_FILES, CAIRN_DIR_MAX_BYTES, CAIRN_DIR_MAX_FILE_BYTES) are also the most you
          can set. A save or a chat that would pass a limit is refused with the limit named; a dir
          already over a lowered limit can still be read and made smaller. A person&apos;s memory is
          one dir across workspaces: it is held to the limits of the workspace they are working in.
        </p>
        {LIMIT_FIELDS.map(({ field, server, unit, label }) => (
          <TextField key={field} {...limit(field, serverLimits[server], unit)} label={label} />
        ))}
      </fieldset>
      <FormMessage message={error ?? (saved ? "Saved." : null)} tone={error ? "error" : "info"} />
      <Button type="submit" disabled={pending} data-testid="save-settings">
        Save settings
      </Button>
    </Form>
  );
}
