export * from "./workspace-settings";
