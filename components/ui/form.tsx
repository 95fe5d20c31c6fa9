import type { ComponentProps } from "react";

/**
 * A form the page submits in script (a server action through `useAction`, a chat message): the
 * browser's own submit is prevented, then `onSubmit` runs. Renders a plain `<form>`.
 */
export function Form({
  onSubmit,
  ...props
}: Omit<ComponentProps<"form">, "onSubmit"> & { onSubmit: () => void }) {
  return (
    <form
      {...props}
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit();
      }}
    />
  );
}
