import { describe, expect, it, vi } from "vitest";
import type { ActionResult } from "./result";
import { settleResult } from "./use-action";

function effects() {
  return { show: vi.fn(), refresh: vi.fn() };
}

describe("settleResult (what useAction does with a result)", () => {
  it("shows a failure and neither calls onSuccess nor refreshes", () => {
    const fx = effects();
    const onSuccess = vi.fn();
    const failed: ActionResult<string> = {
      ok: false,
      error: { code: "not_found:chat", message: "That chat does not exist or is not yours." },
    };
    settleResult(failed, { onSuccess }, fx);
    expect(fx.show).toHaveBeenCalledWith(failed.ok ? null : failed.error);
    expect(onSuccess).not.toHaveBeenCalled();
    expect(fx.refresh).not.toHaveBeenCalled();
  });

  it("clears the failure, hands the data to onSuccess, then refreshes by default", () => {
    const fx = effects();
    const order: string[] = [];
    fx.refresh.mockImplementation(() => order.push("refresh"));
    settleResult(
      { ok: true, data: { chatId: "c1" } },
      { onSuccess: (d) => order.push(d.chatId) },
      fx,
    );
    expect(fx.show).toHaveBeenCalledWith(null);
    expect(order).toEqual(["c1", "refresh"]);
  });

  it("skips the refresh when told, also per result", () => {
    const fx = effects();
    settleResult({ ok: true, data: 1 }, { refresh: false }, fx);
    settleResult({ ok: true, data: { applied: false } }, { refresh: (d) => d.applied }, fx);
    expect(fx.refresh).not.toHaveBeenCalled();
    settleResult({ ok: true, data: { applied: true } }, { refresh: (d) => d.applied }, fx);
    expect(fx.refresh).toHaveBeenCalledTimes(1);
  });
});
