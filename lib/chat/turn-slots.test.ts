import { describe, expect, it } from "vitest";
import { createTurnSlots, withTurnSlot } from "./turn-slots";

/** A started turn whose `finished` the test settles by hand. */
function startedTurn() {
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  return { result: { status: "started" as const, finished }, finish };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe("concurrent turns per user", () => {
  it("frees the slot when the turn's model work ends, even while its record still waits (a database outage)", async () => {
    const slots = createTurnSlots({ maxPerUser: 1 });
    let endWork!: () => void;
    const slotFreed = new Promise<void>((resolve) => (endWork = resolve));
    const neverRecorded = new Promise<void>(() => {});
    await withTurnSlot({
      userId: "ann",
      slots,
      start: async () => ({ status: "started" as const, finished: neverRecorded, slotFreed }),
    });
    const refused = await withTurnSlot({
      userId: "ann",
      slots,
      start: async () => startedTurn().result,
    });
    expect(refused.status).toBe("too_many_turns");
    endWork();
    await flush();
    const next = await withTurnSlot({
      userId: "ann",
      slots,
      start: async () => startedTurn().result,
    });
    expect(next.status).toBe("started");
  });

  it("refuses a third running turn for one user, not for another, and frees the slot when a turn finishes", async () => {
    const slots = createTurnSlots({ maxPerUser: 2 });
    const first = startedTurn();
    const second = startedTurn();
    await withTurnSlot({ userId: "ann", slots, start: async () => first.result });
    await withTurnSlot({ userId: "ann", slots, start: async () => second.result });

    let started = false;
    const third = await withTurnSlot({
      userId: "ann",
      slots,
      start: async () => {
        started = true;
        return startedTurn().result;
      },
    });
    expect(third).toEqual({
      status: "too_many_turns",
      message:
        "You already have 2 turns running. Wait for one to finish or stop it, then send again.",
    });
    expect(started).toBe(false);
    expect(
      (await withTurnSlot({ userId: "bob", slots, start: async () => startedTurn().result }))
        .status,
    ).toBe("started");

    first.finish();
    await flush();
    expect(slots.running("ann")).toBe(1);
    expect(
      (await withTurnSlot({ userId: "ann", slots, start: async () => startedTurn().result }))
        .status,
    ).toBe("started");
  });

  it("releases the slot at once when the turn does not start or its start throws", async () => {
    const slots = createTurnSlots({ maxPerUser: 1 });
    await withTurnSlot({ userId: "ann", slots, start: async () => ({ status: "not_found" }) });
    expect(slots.running("ann")).toBe(0);
    await expect(
      withTurnSlot({
        userId: "ann",
        slots,
        start: async (): Promise<{ status: string }> => {
          throw new Error("database down");
        },
      }),
    ).rejects.toThrow("database down");
    expect(slots.running("ann")).toBe(0);
  });

  it("also frees the slot when the turn's recording fails", async () => {
    const slots = createTurnSlots({ maxPerUser: 1 });
    const finished = Promise.reject(new Error("recording failed"));
    await withTurnSlot({
      userId: "ann",
      slots,
      start: async () => ({ status: "started", finished }),
    });
    await flush();
    expect(slots.running("ann")).toBe(0);
  });
});
