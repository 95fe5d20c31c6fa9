export { PrismaHarnessStorage } from "./harness-storage";
