"use client";

import { useState } from "react";
import { cn } from "@/lib/utils";
import { isMarkdownPath, MarkdownPreview } from "./markdown-preview";

/** A two-way toggle, as tabs: "Write | Preview" in the editor, "Rendered | Source" here. */
export function ViewTabs<T extends string>(props: {
  value: T;
  options: readonly { value: T; label: string }[];
  onChange: (value: T) => void;
  label: string;
}) {
  return (
    <div role="tablist" aria-label={props.label} className="bg-muted inline-flex rounded-md p-0.5">
      {props.options.map((option) => (
        <button
          key={option.value}
          type="button"
          role="tab"
          aria-selected={props.value === option.value}
          data-testid={`tab-${option.value}`}
          className={cn(
            "rounded px-2.5 py-1 text-xs font-medium",
            props.value === option.value
              ? "bg-background text-foreground shadow-sm"
              : "text-muted-foreground hover:text-foreground",
          )}
          onClick={() => props.onChange(option.value)}
        >
          {option.label}
        </button>
      ))}
    </div>
  );
}

/** A file for reading only: markdown rendered (with its source a click away), other text as is. */
export function FileViewer(props: { path: string; text: string | null; size: number }) {
  const markdown = props.text !== null && isMarkdownPath(props.path);
  const [mode, setMode] = useState<"rendered" | "source">("rendered");
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center justify-between gap-2 text-sm">
        <span className="font-mono break-all" data-testid="file-path">
          {props.path}
        </span>
        <span className="flex items-center gap-2">
          {markdown ? (
            <ViewTabs
              label="How to show the file"
              value={mode}
              onChange={setMode}
              options={[
                { value: "rendered", label: "Rendered" },
                { value: "source", label: "Source" },
              ]}
            />
          ) : null}
          <span className="text-muted-foreground">{props.size} bytes</span>
        </span>
      </div>
      {markdown && mode === "rendered" ? (
        <MarkdownPreview text={props.text!} testId="file-rendered" />
      ) : (
        <pre
          data-testid="file-content"
          className="border-border bg-muted/40 max-h-[32rem] overflow-auto rounded-md border p-3 font-mono text-sm whitespace-pre-wrap"
        >
          {props.text ?? `(binary file, ${props.size} bytes)`}
        </pre>
      )}
    </div>
  );
}
