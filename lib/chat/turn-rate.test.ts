import { describe, expect, it } from "vitest";
import { createTurnRate } from "./turn-rate";
import { createTurnSlots, withTurnSlot } from "./turn-slots";

/** A clock the test moves by hand. */
function manualClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe("turn rate (token bucket per person)", () => {
  it("allows a minute's worth at once, then refills at the rate, per person", () => {
    const clock = manualClock();
    const rate = createTurnRate({ perMinute: 6, now: clock.now });
    for (let index = 0; index < 6; index++) expect(rate.tryTake("ann")).toEqual({ ok: true });
    // Empty: the next token comes after 60 s / 6 = 10 s.
    expect(rate.tryTake("ann")).toEqual({ ok: false, retryAfterSeconds: 10 });
    expect(rate.tryTake("bob")).toEqual({ ok: true });
    clock.advance(4_000);
    expect(rate.tryTake("ann")).toEqual({ ok: false, retryAfterSeconds: 6 });
    clock.advance(6_000);
    expect(rate.tryTake("ann")).toEqual({ ok: true });
    expect(rate.tryTake("ann").ok).toBe(false);
    // A long pause fills the bucket, never beyond the burst.
    clock.advance(10 * 60_000);
    expect(rate.available("ann")).toBe(6);
  });

  it("takes several tokens at once or none, and says when they will be there", () => {
    const clock = manualClock();
    const rate = createTurnRate({ perMinute: 30, now: clock.now });
    expect(rate.tryTake("ann", 25)).toEqual({ ok: true });
    // 5 left; 10 asked: 5 missing at one every 2 s.
    expect(rate.tryTake("ann", 10)).toEqual({ ok: false, retryAfterSeconds: 10 });
    expect(rate.available("ann")).toBe(5);
    expect(rate.tryTake("ann", 5)).toEqual({ ok: true });
    expect(rate.burst).toBe(30);
  });

  it("refuses a chat turn over the rate with Retry-After seconds, without holding a slot", async () => {
    const clock = manualClock();
    const rate = createTurnRate({ perMinute: 2, now: clock.now });
    const slots = createTurnSlots({ maxPerUser: 5 });
    const start = async () => ({ status: "not_found" as const });
    expect((await withTurnSlot({ userId: "ann", slots, rate, start })).status).toBe("not_found");
    expect((await withTurnSlot({ userId: "ann", slots, rate, start })).status).toBe("not_found");
    let started = false;
    const refused = await withTurnSlot({
      userId: "ann",
      slots,
      rate,
      start: async () => {
        started = true;
        return { status: "not_found" as const };
      },
    });
    expect(refused).toEqual({
      status: "too_many_turns",
      message: "You are starting turns faster than 2 a minute. Try again in 30 s.",
      retryAfterSeconds: 30,
    });
    expect(started).toBe(false);
    expect(slots.running("ann")).toBe(0);
  });

  it("takes no token when the slots refuse the turn", async () => {
    const rate = createTurnRate({ perMinute: 2, now: manualClock().now });
    const slots = createTurnSlots({ maxPerUser: 1 });
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    await withTurnSlot({
      userId: "ann",
      slots,
      rate,
      start: async () => ({ status: "started", finished }),
    });
    const refused = await withTurnSlot({
      userId: "ann",
      slots,
      rate,
      start: async () => ({ status: "started" }),
    });
    expect(refused.status).toBe("too_many_turns");
    expect(rate.available("ann")).toBe(1);
    finish();
  });
});
