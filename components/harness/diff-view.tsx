import { sideBySideDiff, type DiffCell } from "@/lib/side-by-side-diff";
import { cn } from "@/lib/utils";

function Cell({ cell }: { cell: DiffCell | null }) {
  return (
    <>
      <td className="text-muted-foreground w-10 pr-2 text-right align-top select-none">
        {cell?.line ?? ""}
      </td>
      <td
        className={cn(
          "align-top whitespace-pre-wrap",
          cell?.kind === "removed" && "bg-red-500/15",
          cell?.kind === "added" && "bg-green-500/15",
          !cell && "bg-muted",
        )}
        data-kind={cell?.kind ?? "empty"}
      >
        {cell?.text ?? ""}
      </td>
    </>
  );
}

/**
 * The fallback when the texts are too large or too different to diff within the limits
 * (`DEFAULT_DIFF_LIMITS`): both versions whole, side by side, with a note saying why.
 */
function BothVersions(props: {
  before: string;
  after: string;
  beforeLabel: string;
  afterLabel: string;
  reason: "too-large" | "too-many-changes";
}) {
  return (
    <div className="space-y-2" data-testid="diff-view" data-diff="both-versions">
      <p className="text-muted-foreground text-sm" data-testid="diff-too-different">
        {props.reason === "too-large"
          ? "Too large to diff — showing both versions."
          : "Too different to diff — showing both versions."}
      </p>
      <div className="grid grid-cols-2 gap-2">
        {(
          [
            [props.beforeLabel, props.before],
            [props.afterLabel, props.after],
          ] as const
        ).map(([label, text], index) => (
          <figure key={index} className="border-border min-w-0 border">
            <figcaption className="border-border border-b p-1 font-mono text-xs font-semibold">
              {label}
            </figcaption>
            <pre className="max-h-[32rem] overflow-auto p-1 font-mono text-xs whitespace-pre-wrap">
              {text}
            </pre>
          </figure>
        ))}
      </div>
    </div>
  );
}

/**
 * Two texts side by side, changed lines highlighted; both versions whole when they are too
 * large or too different to diff within the limits.
 */
export function DiffView(props: {
  before: string;
  after: string;
  beforeLabel: string;
  afterLabel: string;
}) {
  const diff = sideBySideDiff(props.before, props.after);
  if (diff.kind === "too-different") return <BothVersions {...props} reason={diff.reason} />;
  const rows = diff.rows;
  return (
    <table
      className="border-border w-full table-fixed border font-mono text-xs"
      data-testid="diff-view"
    >
      <thead>
        <tr className="text-left">
          <th className="w-10">
            <span className="sr-only">Line</span>
          </th>
          <th className="p-1">{props.beforeLabel}</th>
          <th className="w-10">
            <span className="sr-only">Line</span>
          </th>
          <th className="p-1">{props.afterLabel}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row, index) => (
          <tr key={index} className="border-border border-t">
            <Cell cell={row.left} />
            <Cell cell={row.right} />
          </tr>
        ))}
      </tbody>
    </table>
  );
}
