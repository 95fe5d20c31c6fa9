/**
 * A list table's header row: muted, left-aligned column names, the first one padded; an empty
 * name is a column without a heading (e.g. the row's actions).
 */
export function TableHead({ columns }: { columns: readonly string[] }) {
  return (
    <thead className="text-muted-foreground text-left">
      <tr>
        {columns.map((column, index) => (
          <th key={index} className={index === 0 ? "py-2" : undefined}>
            {/* A column without a heading still names itself to screen readers. */}
            {column || <span className="sr-only">Actions</span>}
          </th>
        ))}
      </tr>
    </thead>
  );
}
