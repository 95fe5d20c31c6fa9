import { hasErrorMarker, HarnessError, registerErrorType } from "@/lib/harness";

const marker = Symbol.for("cairn.cli.error.usage");

declare module "@/lib/harness" {
  interface HarnessErrorTypes {
    /** A command line the CLI does not understand. */
    usage: true;
  }
}

registerErrorType("usage", { status: 400 });

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
