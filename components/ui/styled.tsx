import type { ComponentProps } from "react";
import { cn } from "@/lib/utils";

type Tag = "div" | "h2" | "p" | "span" | "input" | "select";

/**
 * A `tag` element with the `base` classes, merged with the caller's `className` (later Tailwind
 * utilities win), and every other prop passed through: the shape of the styled primitives here.
 */
export function styled<T extends Tag>(tag: T, base: string, displayName: string) {
  function Styled({ className, ...props }: ComponentProps<T>) {
    const Element = tag as React.ElementType;
    return <Element className={cn(base, className)} {...props} />;
  }
  Styled.displayName = displayName;
  return Styled;
}
