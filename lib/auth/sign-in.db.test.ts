import bcrypt from "bcryptjs";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createUserInWorkspace } from "@/lib/accounts";
import type { SqlExecutor } from "@/lib/sql-storage/sql";
import { createTestDatabase, testDatabaseProvider, type TestDatabase } from "@/lib/db/testing";
import { SIGN_IN_WINDOW_MS, type SignInLimits } from "./rate-limit";
import { checkSignIn, type SignInCheck } from "./sign-in";

const limits: SignInLimits = {
  perAddress: 20,
  perEmailAndAddress: 5,
  backoffAfter: 10,
  backoffBaseMs: 1000,
  backoffMaxMs: SIGN_IN_WINDOW_MS,
};
const T0 = Date.parse("2026-12-01T10:00:00Z");

describe(`sign-in limits (${testDatabaseProvider()})`, () => {
  let database: TestDatabase;
  let compare: ReturnType<typeof vi.spyOn>;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.cleanup();
  });
  beforeEach(async () => {
    await database.db.rateLimitBucket.deleteMany();
    await database.db.membership.deleteMany();
    await database.db.user.deleteMany();
    await database.db.workspace.deleteMany();
    await createUserInWorkspace(database.sql, {
      email: "owner@example.com",
      password: "right-password",
      role: "admin",
      workspaceName: "Acme",
    });
    compare = vi.spyOn(bcrypt, "compare");
  });
  afterEach(() => {
    compare.mockRestore();
  });

  function attempt(options: {
    password: string;
    address: string | null;
    now?: number;
    email?: string;
  }) {
    return checkSignIn({
      sql: database.sql,
      email: options.email ?? "owner@example.com",
      password: options.password,
      address: options.address,
      limits,
      now: options.now ?? T0,
    });
  }

  function statuses(results: SignInCheck[]) {
    const counts: Record<string, number> = {};
    for (const result of results) counts[result.status] = (counts[result.status] ?? 0) + 1;
    return counts;
  }

  it("checks at most 5 of 20 concurrent wrong passwords, then refuses the right one", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, () => attempt({ password: "wrong", address: "198.51.100.1" })),
    );
    expect(statuses(results)).toEqual({ invalid: 5, limited: 15 });
    expect(compare).toHaveBeenCalledTimes(5);
    const right = await attempt({ password: "right-password", address: "198.51.100.1" });
    expect(right).toMatchObject({ status: "limited" });
    expect(compare).toHaveBeenCalledTimes(5);
    // The window ends 15 minutes after the first attempt.
    expect(right.status === "limited" && right.retryAfterSeconds).toBe(15 * 60);
    expect(
      await attempt({
        password: "right-password",
        address: "198.51.100.1",
        now: T0 + SIGN_IN_WINDOW_MS,
      }),
    ).toMatchObject({ status: "ok" });
  });

  it("limits one address across emails, counting attempts before any check", async () => {
    const emails = Array.from({ length: 30 }, (_, index) => `nobody${index}@example.com`);
    const results = await Promise.all(
      emails.map((email) => attempt({ email, password: "guess", address: "198.51.100.2" })),
    );
    expect(statuses(results)).toEqual({ invalid: 20, limited: 10 });
    expect(compare).toHaveBeenCalledTimes(20);
    expect(await attempt({ password: "right-password", address: "198.51.100.3" })).toMatchObject({
      status: "ok",
    });
  });

  it("lets the owner in from a known address while many addresses hammer the account", async () => {
    expect(await attempt({ password: "right-password", address: "192.0.2.10" })).toMatchObject({
      status: "ok",
    });
    // Four attacking addresses, 10 guesses each: 5 per address are checked, then backoff starts.
    const attackers = ["203.0.113.1", "203.0.113.2", "203.0.113.3", "203.0.113.4"];
    const results = await Promise.all(
      attackers.flatMap((address) =>
        Array.from({ length: 10 }, () => attempt({ password: "guess", address })),
      ),
    );
    const checked = results.filter((result) => result.status === "invalid").length;
    expect(checked).toBeLessThanOrEqual(11);
    expect(compare).toHaveBeenCalledTimes(1 + checked);
    // A fresh attacking address is slowed by the per-email backoff…
    expect(await attempt({ password: "guess", address: "203.0.113.99" })).toMatchObject({
      status: "limited",
      reason: "email",
    });
    // …but the owner's address, where they signed in before, is not.
    expect(await attempt({ password: "right-password", address: "192.0.2.10" })).toMatchObject({
      status: "ok",
    });
  });

  it("backs off exponentially per email from unknown addresses, and a success resets it", async () => {
    let now = T0;
    for (let index = 0; index < 10; index++) {
      // Each guess from its own address: only the per-email backoff applies.
      expect(
        await attempt({ password: "guess", address: `203.0.113.${index}`, now }),
      ).toMatchObject({
        status: "invalid",
      });
    }
    expect(await attempt({ password: "guess", address: "203.0.113.50", now })).toMatchObject({
      status: "invalid",
    }); // the 11th takes the slot and sets a 1 s delay
    const refused = await attempt({ password: "guess", address: "203.0.113.51", now });
    expect(refused).toMatchObject({ status: "limited", reason: "email", retryAfterSeconds: 1 });
    now += 1000;
    expect(await attempt({ password: "guess", address: "203.0.113.52", now })).toMatchObject({
      status: "invalid",
    }); // the 12th: next delay 2 s
    now += 1000;
    expect(await attempt({ password: "guess", address: "203.0.113.53", now })).toMatchObject({
      status: "limited",
      retryAfterSeconds: 1,
    });
    now += 1000;
    expect(
      await attempt({ password: "right-password", address: "198.51.100.60", now }),
    ).toMatchObject({
      status: "ok",
    });
    expect(await attempt({ password: "guess", address: "203.0.113.54", now })).toMatchObject({
      status: "invalid",
    });
  });

  it("answers an unknown email after a bcrypt check too, and only as invalid", async () => {
    expect(
      await attempt({ email: "ghost@example.com", password: "x", address: "198.51.100.9" }),
    ).toEqual({
      status: "invalid",
    });
    expect(compare).toHaveBeenCalledTimes(1);
  });

  it("keeps no shared bucket for clients whose address is unknown", async () => {
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, index) =>
        attempt({ email: `x${index}@example.com`, password: "guess", address: null }),
      ),
    );
    expect(statuses(results)).toEqual({ invalid: 25 });
    expect(await attempt({ password: "right-password", address: null })).toMatchObject({
      status: "ok",
    });
  });

  it("lets attempts below the backoff threshold through whatever order their clocks arrive in", async () => {
    // Two sign-ins of one person from a new address at once (two tabs, two instances): the one
    // whose clock reading is older may reach the database second. Below the threshold neither
    // waits; the owner is not limited by their own first attempt.
    expect(
      await attempt({ password: "guess", address: "198.51.100.9", now: T0 + 5 }),
    ).toMatchObject({ status: "invalid" });
    expect(
      await attempt({ password: "right-password", address: "198.51.100.9", now: T0 }),
    ).toMatchObject({ status: "ok" });
  });

  it("does not spend the address limit on successful sign-ins", async () => {
    for (let index = 0; index < 25; index++) {
      expect(await attempt({ password: "right-password", address: "192.0.2.44" })).toMatchObject({
        status: "ok",
      });
    }
  });

  it("prunes stale buckets on a successful sign-in but keeps known addresses for 30 days", async () => {
    expect(await attempt({ password: "guess", address: "203.0.113.7" })).toMatchObject({
      status: "invalid",
    });
    expect(await attempt({ password: "right-password", address: "192.0.2.5" })).toMatchObject({
      status: "ok",
    });
    const later = T0 + 2 * 24 * 3600 * 1000;
    expect(
      await attempt({ password: "right-password", address: "192.0.2.6", now: later }),
    ).toMatchObject({ status: "ok" });
    const buckets = (await database.db.rateLimitBucket.findMany()).map((row) => row.bucket).sort();
    expect(buckets).toEqual([
      "sign-in:address:192.0.2.6",
      "sign-in:known:owner@example.com|192.0.2.5",
      "sign-in:known:owner@example.com|192.0.2.6",
    ]);
  });

  it("fails closed, without checking the password, when the limiter cannot write", async () => {
    const unavailable = () =>
      Promise.reject(new Error("Unable to start a transaction in the given time"));
    const broken: SqlExecutor = {
      dialect: database.sql.dialect,
      all: unavailable,
      get: unavailable,
      run: unavailable,
    };
    const result = await checkSignIn({
      sql: broken,
      email: "owner@example.com",
      password: "right-password",
      address: "198.51.100.77",
      limits,
      now: T0,
    });
    expect(result.status).toBe("unavailable");
    expect(compare).not.toHaveBeenCalled();
  });
});
