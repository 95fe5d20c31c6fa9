// oidc-provider ships no types; the part the loopback issuer uses (e2e/support/oidc-issuer.ts).
declare module "oidc-provider" {
  import type { Server } from "node:http";

  interface Account {
    accountId: string;
    claims(): Record<string, unknown> | Promise<Record<string, unknown>>;
  }

  interface Configuration {
    clients?: Array<Record<string, unknown>>;
    claims?: Record<string, string[]>;
    scopes?: string[];
    findAccount?(context: unknown, id: string): Promise<Account | undefined>;
    features?: Record<string, unknown>;
    cookies?: { keys?: string[] };
    [option: string]: unknown;
  }

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    proxy: boolean;
    on(event: string, listener: (...args: never[]) => void): this;
    listen(port: number, host?: string): Server;
  }
}
