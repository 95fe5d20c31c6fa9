"use client";

import dynamic from "next/dynamic";

/**
 * The markdown renderer (Streamdown with remark and rehype) is loaded when a preview is first
 * shown, not with the Files page: most visits never render markdown. Images are limited as in
 * the chat (the same plugins; see docs/security.md).
 */
const Markdown = dynamic(
  () => import("@/components/chat/assistant-markdown").then((module) => module.AssistantMarkdown),
  {
    loading: () => <p className="text-muted-foreground text-sm">Rendering…</p>,
  },
);

/** A markdown file rendered as a person reads it. */
export function MarkdownPreview({ text, testId }: { text: string; testId?: string }) {
  return (
    <div
      data-testid={testId ?? "markdown-preview"}
      className="border-border max-h-[40rem] min-h-[10rem] overflow-auto rounded-md border p-4 text-sm [&_a]:underline [&_blockquote]:border-l-2 [&_blockquote]:pl-3 [&_code]:font-mono [&_h1]:text-xl [&_h1]:font-semibold [&_h2]:text-lg [&_h2]:font-semibold [&_h3]:font-semibold [&_li]:ml-5 [&_ol]:list-decimal [&_ul]:list-disc [&>*+*]:mt-3"
    >
      {text.trim() === "" ? (
        <p className="text-muted-foreground italic">Nothing to preview.</p>
      ) : (
        <Markdown>{text}</Markdown>
      )}
    </div>
  );
}

/** Whether a path reads as markdown (previewed rendered by default). */
export function isMarkdownPath(path: string): boolean {
  return /\.(md|markdown|mdx)$/i.test(path);
}
