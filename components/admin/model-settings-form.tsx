"use client";

import { Loader2 } from "lucide-react";
import { useState } from "react";
import {
  listModelsAction,
  removeModelSettingsAction,
  saveModelSettingsAction,
  testModelConnectionAction,
} from "@/app/(app)/admin/settings/model-actions";
import { Button } from "@/components/ui/button";
import { Form } from "@/components/ui/form";
import { FormMessage } from "@/components/ui/form-message";
import { SelectField } from "@/components/ui/select-field";
import { TextField } from "@/components/ui/text-field";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { useAction } from "@/lib/actions/use-action";
import type { ModelProvider } from "@/lib/ai/resolve-model-config";
import type { ModelSettingsView } from "@/lib/model-settings/model-settings-store";

const PROVIDERS: { value: ModelProvider; label: string; baseUrlHint: string }[] = [
  { value: "openai", label: "OpenAI", baseUrlHint: "Leave empty for https://api.openai.com/v1" },
  {
    value: "anthropic",
    label: "Anthropic",
    baseUrlHint: "Leave empty for https://api.anthropic.com/v1",
  },
  {
    value: "openai-compatible",
    label: "OpenAI-compatible (Ollama, vLLM, LM Studio, llama.cpp)",
    baseUrlHint:
      "The server's OpenAI-compatible address, usually ending in /v1: Ollama http://127.0.0.1:11434/v1, vLLM :8000/v1, LM Studio :1234/v1, llama.cpp :8080/v1",
  },
];

/**
 * Admin → Settings → Model: the workspace's model, saved in the database (the key sealed, never
 * sent back), used from the next message on, on every instance. `envOverride` says the server's
 * `AI_*` variables choose the model instead (they win); the form still saves.
 */
export function ModelSettingsForm({
  saved,
  envOverride,
}: {
  saved: ModelSettingsView | null;
  envOverride: boolean;
}) {
  const [provider, setProvider] = useState<ModelProvider>(saved?.provider ?? "openai-compatible");
  const [baseUrl, setBaseUrl] = useState(saved?.baseUrl ?? "");
  const [apiKey, setApiKey] = useState("");
  const [model, setModel] = useState(saved?.model ?? "");
  const [refineModel, setRefineModel] = useState(saved?.refineModel ?? "");
  const [models, setModels] = useState<string[] | null>(null);
  const [test, setTest] = useState<{ ok: boolean; text: string } | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const save = useAction();
  const probe = useAction();
  const lister = useAction();
  const keySaved = Boolean(saved?.apiKeySet && saved.provider === provider);
  const hint = PROVIDERS.find((entry) => entry.value === provider)!.baseUrlHint;
  const probeInput = { provider, baseUrl, apiKey, model };

  const loadModels = () => {
    setModels(null);
    lister.run(() => listModelsAction(probeInput), {
      onSuccess: (ids) => setModels(ids ?? []),
      refresh: false,
    });
  };

  return (
    <section className="max-w-lg space-y-3" aria-labelledby="model-heading" id="model">
      <h2 id="model-heading" className="font-medium">
        Model
      </h2>
      <p className="text-muted-foreground text-sm">
        The model every chat in this workspace uses. A change applies from the next message on.
      </p>
      {envOverride ? (
        <p
          className="rounded-md border border-amber-500/50 p-2 text-sm"
          data-testid="model-env-override"
        >
          The server&apos;s AI_* environment variables choose the model, and they win over what is
          saved here. Remove them from the server&apos;s environment to use these settings.
        </p>
      ) : null}
      <Form
        className="space-y-4"
        data-testid="model-settings-form"
        onSubmit={() => {
          setDone(null);
          save.run(
            () =>
              saveModelSettingsAction({
                provider,
                baseUrl,
                apiKey,
                model,
                refineModel,
              }),
            {
              onSuccess: () => {
                setApiKey("");
                setDone("Saved. The next message uses this model.");
              },
            },
          );
        }}
      >
        <SelectField
          id="model-provider"
          label="Provider"
          data-testid="model-form-provider"
          value={provider}
          options={PROVIDERS}
          onValueChange={(chosen) => {
            setProvider(chosen);
            setModels(null);
            setTest(null);
          }}
        />
        <TextField
          id="model-base-url"
          label="Base URL"
          data-testid="model-form-base-url"
          inputMode="url"
          autoComplete="off"
          value={baseUrl}
          placeholder={provider === "openai-compatible" ? "http://127.0.0.1:11434/v1" : ""}
          onValueChange={setBaseUrl}
          hintId="model-base-url-hint"
          hint={hint}
        />
        <TextField
          id="model-api-key"
          label="API key"
          data-testid="model-form-api-key"
          type="password"
          autoComplete="off"
          value={apiKey}
          placeholder={keySaved ? "Saved — leave empty to keep it" : ""}
          onValueChange={setApiKey}
          hintId="model-api-key-hint"
          hint={
            keySaved
              ? "A key is saved (encrypted; it is never shown again). Type a new one to replace it."
              : provider === "openai-compatible"
                ? "Only if the server asks for one."
                : "Stored encrypted; it is never shown again."
          }
        />
        <div className="space-y-2">
          <Label htmlFor="model-id">Model</Label>
          <div className="flex gap-2">
            <Input
              id="model-id"
              data-testid="model-form-id"
              list="model-choices"
              autoComplete="off"
              value={model}
              onChange={(event) => setModel(event.target.value)}
            />
            <Button
              type="button"
              variant="outline"
              data-testid="model-list"
              disabled={lister.pending}
              onClick={loadModels}
            >
              {lister.pending ? <Loader2 className="size-3.5 animate-spin" /> : null}
              List models
            </Button>
          </div>
          <datalist id="model-choices">
            {(models ?? []).map((id) => (
              <option key={id} value={id} />
            ))}
          </datalist>
          {models !== null ? (
            <p
              className="text-muted-foreground text-xs"
              role="status"
              data-testid="model-list-result"
            >
              {models.length > 0
                ? `${models.length} model${models.length === 1 ? "" : "s"} offered: ${models.slice(0, 8).join(", ")}${models.length > 8 ? "…" : ""}. Pick one in the Model field.`
                : "The server did not list its models; type the model's name."}
            </p>
          ) : null}
          <FormMessage message={lister.error} tone="error" />
        </div>
        <TextField
          id="model-refine-id"
          label="Refinement model (optional)"
          data-testid="model-form-refine-id"
          list="model-choices"
          autoComplete="off"
          value={refineModel}
          onValueChange={setRefineModel}
          hintId="model-refine-hint"
          hint="A cheaper model on the same endpoint for refining and reviewing what Cairn remembers. Empty: the chat model does it."
        />
        <div role="status" aria-live="polite">
          {test ? (
            <p
              className={
                test.ok
                  ? "text-sm text-emerald-700 dark:text-emerald-400"
                  : "text-destructive text-sm"
              }
              data-testid="model-test-result"
              data-ok={test.ok ? "true" : "false"}
            >
              {test.text}
            </p>
          ) : null}
        </div>
        <FormMessage
          message={probe.error ?? save.error ?? done}
          tone={probe.error || save.error ? "error" : "info"}
        />
        <div className="flex flex-wrap gap-2">
          <Button type="submit" disabled={save.pending} data-testid="model-save">
            Save model
          </Button>
          <Button
            type="button"
            variant="outline"
            data-testid="model-test"
            disabled={probe.pending}
            onClick={() => {
              setTest(null);
              probe.run(() => testModelConnectionAction(probeInput), {
                onSuccess: (result) =>
                  setTest(
                    result.ok
                      ? { ok: true, text: `Connected: ${model} answered.` }
                      : { ok: false, text: `Not connected: ${result.message}` },
                  ),
                refresh: false,
              });
            }}
          >
            {probe.pending ? <Loader2 className="size-3.5 animate-spin" /> : null}
            Test connection
          </Button>
          {saved ? (
            <Button
              type="button"
              variant="ghost"
              data-testid="model-remove"
              disabled={save.pending}
              onClick={() =>
                save.run(() => removeModelSettingsAction({}), {
                  onSuccess: () => {
                    setDone("Removed.");
                    setApiKey("");
                  },
                })
              }
            >
              Remove
            </Button>
          ) : null}
        </div>
      </Form>
    </section>
  );
}
