import { hasErrorMarker, HarnessValidationError } from "../errors";

const marker = Symbol.for("cairn.harness.error.failed_commits_quota");

/**
 * A commit log's refusal to keep a refused commit: the commit failed for a reason that would
 * refuse it again as it is (a `validation` error — a dir limit, a history quota), and the open
 * records of its owner already hold the log's bound, so keeping it too would let one person fill
 * the disk through Commit failures. Nothing was stored; the change set is gone unless the caller
 * still holds it (the Files editor's text, the MCP client's request). Code `validation:commit`;
 * `details` name the owner, the bound, what the owner's open records hold and what this one would
 * add. Only `appendCommit({ bounded: true })` throws it: conflicts and transient failures are
 * always kept.
 */
export class FailedCommitsQuotaError extends HarnessValidationError {
  private readonly [marker] = true;

  constructor(options: {
    /** Plain words for the person; default: a generic one without the setting's name. */
    message?: string;
    owner: string;
    limitBytes: number;
    usedBytes: number;
    addedBytes: number;
  }) {
    const { message, ...details } = options;
    super({
      surface: "commit",
      message:
        message ??
        `This change was not kept: the open commit records of ${details.owner} already hold ${details.usedBytes} bytes (limit ${details.limitBytes}), and keeping it would add ${details.addedBytes}. Resolve or discard them, then try again.`,
      details,
    });
  }

  static override isInstance(error: unknown): error is FailedCommitsQuotaError {
    return hasErrorMarker(error, marker);
  }
}
