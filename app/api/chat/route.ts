import { z } from "zod";
import { getActor } from "@/lib/auth";
import {
  CHAT_BUSY_MESSAGE,
  incomingMessageSchema,
  MAX_CHAT_REQUEST_BYTES,
  startChatTurn,
  userTurnRate,
  withTurnSlot,
} from "@/lib/chat";
import { requestIdOf } from "@/lib/observability/request-id";
import { discardRestOfBody, readJsonWithLimit, refuseForeignRequest } from "@/lib/security";

export const dynamic = "force-dynamic";
// Turns stream for as long as the model works.
export const maxDuration = 300;

const bodySchema = z.object({
  chatId: z.string().min(1).max(100),
  message: incomingMessageSchema,
  /** `edit` replaces the stored message and what follows; `regenerate` answers it again. */
  mode: z.enum(["submit", "edit", "regenerate"]).optional(),
});

/**
 * POST a new user message to a chat; answers with the turn's UI message stream (SSE).
 * origin → actor → body (at most MAX_CHAT_REQUEST_BYTES) → parse → limits → ownership (in
 * startChatTurn) → run. Requests from other origins and non-JSON bodies are refused first
 * (403/415), then requests without a session (401): neither reads a byte of the body. The Actor
 * comes from the session cookie only. See decision 0029.
 */
export async function POST(request: Request) {
  const refused = refuseForeignRequest(request);
  if (refused) {
    discardRestOfBody(request);
    return Response.json({ error: refused.error }, { status: refused.status });
  }
  const actor = await getActor();
  if (!actor) {
    discardRestOfBody(request);
    return Response.json({ error: "Sign in first." }, { status: 401 });
  }
  const body = await readJsonWithLimit(request, { maxBytes: MAX_CHAT_REQUEST_BYTES });
  if (body.status === "too_large") {
    discardRestOfBody(request);
    return Response.json({ error: body.error }, { status: 413 });
  }
  if (body.status === "invalid") return Response.json({ error: body.error }, { status: 400 });
  const parsed = bodySchema.safeParse(body.value);
  if (!parsed.success) {
    const custom = parsed.error.issues.find((issue) => issue.code === "custom");
    return Response.json(
      {
        error: custom?.message ?? "Invalid message.",
        issues: z.flattenError(parsed.error).fieldErrors,
      },
      { status: 400 },
    );
  }
  const started = await withTurnSlot({
    userId: actor.userId,
    rate: userTurnRate(),
    start: () =>
      startChatTurn({
        actor,
        chatId: parsed.data.chatId,
        message: parsed.data.message,
        mode: parsed.data.mode,
        abortSignal: request.signal,
        requestId: requestIdOf(request),
      }),
  });
  if (started.status === "too_many_turns")
    return Response.json(
      { error: started.message },
      { status: 429, headers: { "Retry-After": String(started.retryAfterSeconds ?? 5) } },
    );
  if (started.status === "not_found")
    return Response.json({ error: "No such chat." }, { status: 404 });
  if (started.status === "forbidden") {
    return Response.json({ error: started.message }, { status: 403 });
  }
  if (started.status === "busy") {
    return Response.json({ error: CHAT_BUSY_MESSAGE, code: "conflict:chat" }, { status: 409 });
  }
  if (started.status === "model_unavailable") {
    // Members are told whom to ask, never how to configure the server (issue 26).
    return Response.json(
      {
        error:
          actor.role === "admin"
            ? `Not sent — no model is connected. ${started.model.message}`
            : "Not sent — no model is connected. Ask an admin to connect a model.",
        code: "model:unavailable",
        stored: started.stored,
      },
      { status: 503 },
    );
  }
  return started.response;
}
