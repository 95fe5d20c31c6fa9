export { startChatTurn, type StartTurnResult } from "./run-chat-turn";
export { incomingMessageSchema, loadChatMessages, MAX_USER_MESSAGE_CHARS } from "./messages";
export { BASE_PROMPT } from "./base-prompt";
export { getTurnForActor, latestTurnId, listInterruptedTurns, type TurnView } from "./turns";
