/**
 * What the chat shows for a failed send. `/api/chat` answers errors as JSON `{ error, code? }`,
 * and the AI SDK's transport puts that body in the error's message: show its `error` text, not
 * the raw JSON. A 409 (`conflict:chat`: another turn is running in this chat) stored nothing and
 * says so itself.
 */
export function describeChatError(error: Error): {
  message: string;
  busy: boolean;
  /** 503 `model:unavailable`: no model can answer; the message was kept, not sent. */
  modelMissing?: boolean;
} {
  const raw = error.message;
  try {
    const body = JSON.parse(raw) as { error?: unknown; code?: unknown };
    if (typeof body.error === "string" && body.error) {
      return {
        message: body.error,
        busy: body.code === "conflict:chat",
        ...(body.code === "model:unavailable" && { modelMissing: true }),
      };
    }
  } catch {
    // Not JSON: a network error or a stream error; show it as is.
  }
  return { message: raw || "The reply failed.", busy: false };
}

/** The one wording of a failed reply, live and after a reload: one sentence end, never two. */
export function failedReplyText(error: string | null | undefined): string {
  const detail = error?.trim().replace(/[.\s]+$/, "");
  return `The reply failed${detail ? `: ${detail}` : ""}. Nothing was saved.`;
}
