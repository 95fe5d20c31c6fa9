import { z } from "zod";
import { errorResponse } from "@/lib/app-error";
import { getActor } from "@/lib/auth";
import {
  CHAT_BUSY_MESSAGE,
  incomingMessageSchema,
  MAX_CHAT_REQUEST_BYTES,
  startChatTurn,
  userTurnRate,
  withTurnSlot,
} from "@/lib/chat";
import { HarnessConflictError, HarnessForbiddenError, HarnessNotFoundError } from "@/lib/harness";
import { requestIdOf } from "@/lib/observability/request-id";
import { ModelUnavailableError, refusalError, RequestError } from "@/lib/request-error";
import { readJsonWithLimit, refuseBody, refuseForeignRequest } from "@/lib/security";

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
 * comes from the session cookie only. See decision 0029. Every refusal is an error of the family
 * answered by the one mapping (`errorResponse`): `{ error, code, ...fields }` with its status.
 */
export async function POST(request: Request) {
  const refused = refuseForeignRequest(request);
  if (refused) return refuseBody(request, errorResponse(refusalError(refused)));
  const actor = await getActor();
  if (!actor) {
    return refuseBody(
      request,
      errorResponse(new RequestError("unauthenticated", "Sign in first.")),
    );
  }
  const body = await readJsonWithLimit(request, { maxBytes: MAX_CHAT_REQUEST_BYTES });
  if (body.status === "too_large") {
    return refuseBody(request, errorResponse(new RequestError("too_large", body.error)));
  }
  if (body.status === "invalid") return errorResponse(new RequestError("invalid", body.error));
  const parsed = bodySchema.safeParse(body.value);
  if (!parsed.success) {
    const custom = parsed.error.issues.find((issue) => issue.code === "custom");
    return errorResponse(
      new RequestError("invalid", custom?.message ?? "Invalid message.", {
        issues: z.flattenError(parsed.error).fieldErrors,
      }),
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
  switch (started.status) {
    case "too_many_turns":
      return errorResponse(
        new RequestError("rate_limited", started.message, {
          retryAfterSeconds: started.retryAfterSeconds ?? 5,
        }),
      );
    case "not_found":
      return errorResponse(new HarnessNotFoundError({ surface: "chat", message: "No such chat." }));
    case "forbidden":
      return errorResponse(
        new HarnessForbiddenError({ surface: "chat", message: started.message }),
      );
    case "busy":
      return errorResponse(
        new HarnessConflictError({ surface: "chat", message: CHAT_BUSY_MESSAGE }),
      );
    case "model_unavailable":
      // Members are told whom to ask, never how to configure the server (issue 26).
      return errorResponse(
        new ModelUnavailableError(
          actor.role === "admin"
            ? `Not sent — no model is connected. ${started.model.message}`
            : "Not sent — no model is connected. Ask an admin to connect a model.",
          { stored: started.stored },
        ),
      );
    default:
      return started.response;
  }
}
