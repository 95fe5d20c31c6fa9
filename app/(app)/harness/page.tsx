import { EmptyState } from "@/components/empty-state";

export default function HarnessPage() {
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">Harness</h1>
      <EmptyState title="Nothing here yet">
        Prompt notes, memories, skills and sub-agent specs will be listed here.
      </EmptyState>
    </div>
  );
}
