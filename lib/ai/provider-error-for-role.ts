import type { ProviderErrorDescription } from "./describe-provider-error";

/** What a member (not an admin) reads for each kind of provider failure: no settings to check. */
const MEMBER_MESSAGES: Record<ProviderErrorDescription["code"], string> = {
  unreachable: "The model is not reachable right now. Try again in a moment, or tell an admin.",
  unauthorized: "The model provider rejected the API key. Tell an admin of this workspace.",
  rate_limited: "The model is busy (rate limited). Try again in a minute.",
  context_too_long:
    "This chat is too long for the model. Start a new chat, or shorten the message.",
  bad_request: "The model could not handle this request. Try again, or tell an admin.",
  provider_error: "The model answered with an error. Try again in a moment.",
};

/**
 * The provider failure as the chat shows it: admins get the full description (which names the
 * settings to check, such as AI_BASE_URL); everyone else gets plain words and who can fix it.
 */
export function providerErrorMessage(
  description: ProviderErrorDescription,
  role: "admin" | "editor" | "member",
): string {
  return role === "admin" ? description.message : MEMBER_MESSAGES[description.code];
}
