export { startChatTurn, type StartTurnResult } from "./run-chat-turn";
export {
  incomingMessageSchema,
  listMessageTimes,
  loadChatMessages,
  MAX_CHAT_REQUEST_BYTES,
  MAX_USER_MESSAGE_CHARS,
  MAX_USER_MESSAGE_PARTS,
  messageTooLongMessage,
  type TurnMode,
} from "./messages";
export { BASE_PROMPT } from "./base-prompt";
export {
  getTurnForActor,
  lastUnansweredTurn,
  latestTurnId,
  listInterruptedTurns,
  type TurnView,
} from "./turns";
export {
  CHAT_BUSY_MESSAGE,
  claimChat,
  holdChatClaim,
  releaseChatClaim,
  renewChatClaim,
  TURN_CLAIM_LEASE_MS,
  type HeldChatClaim,
} from "./turn-claim";
export {
  createTurnSlots,
  DEFAULT_MAX_TURNS_PER_USER,
  userTurnSlots,
  withTurnSlot,
  type TooManyTurns,
  type TurnSlot,
  type TurnSlots,
} from "./turn-slots";
export {
  createTurnRate,
  DEFAULT_TURNS_PER_MINUTE,
  turnRateMessage,
  userTurnRate,
  type TurnRate,
  type TurnRateDecision,
} from "./turn-rate";
