import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resolveDatabaseTarget } from "./database-url";

afterEach(() => vi.unstubAllEnvs());

describe("resolveDatabaseTarget", () => {
  it("reads SQLite and PostgreSQL URLs and refuses anything else", () => {
    expect(resolveDatabaseTarget("file:./data/x.db")).toEqual({
      provider: "sqlite",
      url: `file:${path.resolve("data/x.db")}`,
      filePath: path.resolve("data/x.db"),
    });
    expect(resolveDatabaseTarget("postgresql://u@h/db")).toEqual({
      provider: "postgresql",
      url: "postgresql://u@h/db",
    });
    expect(() => resolveDatabaseTarget("mysql://h/db")).toThrow(/DATABASE_URL/);
  });

  it("answers the same inputs from memory and follows a changed environment", () => {
    vi.stubEnv("DATABASE_URL", "");
    vi.stubEnv("CAIRN_DATA_DIR", "/tmp/cairn-a");
    const first = resolveDatabaseTarget();
    expect(first).toMatchObject({ provider: "sqlite", filePath: "/tmp/cairn-a/cairn.db" });
    expect(resolveDatabaseTarget()).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);

    vi.stubEnv("CAIRN_DATA_DIR", "/tmp/cairn-b");
    expect(resolveDatabaseTarget()).toMatchObject({ filePath: "/tmp/cairn-b/cairn.db" });
    vi.stubEnv("DATABASE_URL", "postgres://u@h/other");
    expect(resolveDatabaseTarget()).toEqual({
      provider: "postgresql",
      url: "postgres://u@h/other",
    });
  });
});
