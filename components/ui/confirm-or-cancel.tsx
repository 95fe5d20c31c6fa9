import { Button } from "@/components/ui/button";

/**
 * The two small buttons that settle an inline confirmation: `label` (destructive unless `variant`
 * says otherwise) runs `onConfirm` unless `disabled`, then Cancel runs `onCancel`. Cancel is held
 * too with `cancelDisabled`, where the panel must stay until the action has answered.
 */
export function ConfirmOrCancel(props: {
  label: string;
  testId: string;
  variant?: "destructive" | "default";
  disabled: boolean;
  onConfirm: () => void;
  cancelVariant?: "ghost" | "outline";
  cancelDisabled?: boolean;
  onCancel: () => void;
}) {
  return (
    <>
      <Button
        variant={props.variant ?? "destructive"}
        size="sm"
        disabled={props.disabled}
        data-testid={props.testId}
        onClick={props.onConfirm}
      >
        {props.label}
      </Button>
      <Button
        variant={props.cancelVariant ?? "ghost"}
        size="sm"
        disabled={props.cancelDisabled}
        onClick={props.onCancel}
      >
        Cancel
      </Button>
    </>
  );
}
