export {
  CAIRN_MCP_SERVER_NAME,
  createCairnMcpServer,
  type CairnMcpServerOptions,
} from "./create-cairn-mcp-server";
export {
  MAX_MCP_BODY_BYTES,
  handleMcpRequest,
  type HandleMcpRequestOptions,
} from "./handle-mcp-request";
export { countTurnCalls, MAX_MCP_BATCH_MESSAGES, TURN_TOOL_NAMES } from "./turn-calls";
