import { type Actor } from "../../actor";
import { HarnessValidationError } from "../../errors";
import { type Harness } from "../../store";

/**
 * Refuses (validation error) a harness built for another user or workspace than `actor`, which
 * a refinement operation acts as; `operation` names the operation in the message.
 */
export function assertHarnessOf(harness: Harness, actor: Actor, operation: string): void {
  if (harness.actor.userId !== actor.userId || harness.actor.workspaceId !== actor.workspaceId) {
    throw new HarnessValidationError({
      surface: "refinement",
      message: `${operation} needs a harness built for the same actor`,
    });
  }
}
