export { createCairn, type Cairn } from "./create-cairn";
export { cairnConfig } from "@/lib/config";
export * from "./process-cairn";
