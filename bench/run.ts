// Runs the benchmarks and prints their figures: `npm run bench` (all) or
// `npm run bench -- prompt-view harness-store` (some). `chat-route`, `stack-floor` and `peers` run only when
// named (`npm run bench -- peers`): they start servers and child processes and take minutes.
import { benchChatRoute } from "./chat-route";
import { benchDiff } from "./diff";
import { benchDirHistory } from "./dir-history";
import { benchDocuments } from "./documents";
import { benchHarnessStore } from "./harness-store";
import { benchPeers } from "./peers/run";
import { benchPersistentDirs } from "./persistent-dirs";
import { benchPromptView } from "./prompt-view";
import { benchRefinement } from "./refinement";
import { benchSearch } from "./search";
import { benchShellStart } from "./shell-start";
import { benchSnapshot } from "./snapshot";
import { benchSqlLayer } from "./sql-layer";
import { benchStackFloor } from "./stack-floor";
import { benchTurnOverhead } from "./turn-overhead";

const benches: Record<string, () => Promise<string>> = {
  "sql-layer": benchSqlLayer,
  "prompt-view": benchPromptView,
  "harness-store": benchHarnessStore,
  "persistent-dirs": benchPersistentDirs,
  "dir-history": benchDirHistory,
  "turn-overhead": benchTurnOverhead,
  refinement: benchRefinement,
  snapshot: benchSnapshot,
  diff: benchDiff,
  "shell-start": benchShellStart,
  search: benchSearch,
};
const namedOnly: Record<string, () => Promise<string>> = {
  "chat-route": benchChatRoute,
  documents: benchDocuments,
  peers: benchPeers,
  "stack-floor": benchStackFloor,
};

const selected = process.argv.slice(2).filter((name) => !name.startsWith("-"));
const unknown = selected.filter((name) => !(name in benches) && !(name in namedOnly));
if (unknown.length) {
  console.error(
    `Unknown benchmark(s): ${unknown.join(", ")}. Known: ${[...Object.keys(benches), ...Object.keys(namedOnly)].join(", ")}`,
  );
  process.exit(2);
}
console.log(`node ${process.version}, ${new Date().toISOString()}\n`);
for (const name of selected.length ? selected : Object.keys(benches)) {
  console.log(`${await (benches[name] ?? namedOnly[name])!()}\n`);
}
