"use client";

import { Search, X } from "lucide-react";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useRef, useState, useTransition } from "react";
import { Input } from "@/components/ui/input";

/**
 * "Filter by path": the words go into the page's `q` parameter, so the server lists only the
 * matching files and a reload keeps the filter. Typing filters after a short pause; Enter
 * filters at once; without JavaScript the form submits the same query.
 */
export function FileFilter(props: {
  dirKind: string;
  filter: string;
  /** The file open beside the tree: kept open while filtering. */
  openPath: string | null;
}) {
  const router = useRouter();
  const pathname = usePathname();
  const [value, setValue] = useState(props.filter);
  const [pending, startTransition] = useTransition();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  // Another filter arrived with the page (back/forward, a link): show it.
  const [seen, setSeen] = useState(props.filter);
  if (props.filter !== seen) {
    setSeen(props.filter);
    setValue(props.filter);
  }

  useEffect(() => () => void (timer.current && clearTimeout(timer.current)), []);

  const apply = (next: string) => {
    if (timer.current) clearTimeout(timer.current);
    const query = new URLSearchParams({ dir: props.dirKind });
    if (props.openPath) query.set("path", props.openPath);
    if (next.trim() !== "") query.set("q", next.trim());
    startTransition(() => router.replace(`${pathname}?${query.toString()}`, { scroll: false }));
  };

  return (
    <form
      role="search"
      action="/files"
      method="get"
      className="relative"
      onSubmit={(event) => {
        event.preventDefault();
        apply(value);
      }}
    >
      <input type="hidden" name="dir" value={props.dirKind} />
      {props.openPath ? <input type="hidden" name="path" value={props.openPath} /> : null}
      <Search className="text-muted-foreground pointer-events-none absolute top-2.5 left-2.5 size-4" />
      <Input
        name="q"
        type="search"
        aria-label="Filter by path"
        placeholder="Filter by path…"
        data-testid="file-filter"
        autoComplete="off"
        className="pr-8 pl-8"
        value={value}
        onChange={(event) => {
          const next = event.target.value;
          setValue(next);
          if (timer.current) clearTimeout(timer.current);
          timer.current = setTimeout(() => apply(next), 350);
        }}
      />
      {value !== "" ? (
        <button
          type="button"
          aria-label="Clear the filter"
          data-testid="file-filter-clear"
          className="text-muted-foreground hover:text-foreground absolute top-2 right-2 rounded p-0.5"
          onClick={() => {
            setValue("");
            apply("");
          }}
        >
          <X className="size-4" />
        </button>
      ) : null}
      <span className="sr-only" aria-live="polite">
        {pending ? "Filtering…" : ""}
      </span>
    </form>
  );
}
