import { hasErrorMarker, HarnessError } from "@/lib/harness";

const marker = Symbol.for("cairn.cli.error.usage");

/**
 * A command line the CLI does not understand: code `usage:cli`, exit code 2 with the usage
 * text. Part of the core's error family.
 */
export class UsageError extends HarnessError {
  private readonly [marker] = true;

  constructor(message: string) {
    super({ code: "usage:cli", message });
  }

  static override isInstance(error: unknown): error is UsageError {
    return hasErrorMarker(error, marker);
  }
}
