export { startChatTurn, type StartTurnResult } from "./run-chat-turn";
export { incomingMessageSchema, loadChatMessages, MAX_USER_MESSAGE_CHARS } from "./messages";
export { BASE_PROMPT } from "./base-prompt";
export { getTurnForActor, latestTurnId, type TurnView } from "./turns";
export {
  CHAT_BUSY_MESSAGE,
  claimChat,
  holdChatClaim,
  releaseChatClaim,
  renewChatClaim,
  TURN_CLAIM_LEASE_MS,
  type HeldChatClaim,
} from "./turn-claim";
