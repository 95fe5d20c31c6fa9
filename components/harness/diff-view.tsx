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

/** Two texts side by side, changed lines highlighted. */
export function DiffView(props: {
  before: string;
  after: string;
  beforeLabel: string;
  afterLabel: string;
}) {
  const rows = sideBySideDiff(props.before, props.after);
  return (
    <table
      className="border-border w-full table-fixed border font-mono text-xs"
      data-testid="diff-view"
    >
      <thead>
        <tr className="text-left">
          <th className="w-10" />
          <th className="p-1">{props.beforeLabel}</th>
          <th className="w-10" />
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
