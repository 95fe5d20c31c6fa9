export { getOwnChat, listChats } from "@/lib/chat/queries";
export * from "./harness-for-actor";
