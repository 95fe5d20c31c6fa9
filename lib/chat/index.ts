export { startChatTurn, type StartTurnResult } from "./run-chat-turn";
export {
  incomingMessageSchema,
  listMessageTimes,
  loadChatMessages,
  MAX_USER_MESSAGE_CHARS,
  type TurnMode,
} from "./messages";
export { BASE_PROMPT } from "./base-prompt";
export { getTurnForActor, latestTurnId, type TurnView } from "./turns";
