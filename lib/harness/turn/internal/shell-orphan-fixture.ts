// Test fixture for shell-tool.test.ts: a stand-in server that starts a runaway `bash` call and
// then waits to be killed. It prints its own pid once the command's clock has started, so the
// test can list the worker processes (the busy one and the warm spare) and SIGKILL this process.
import { runShellSandbox } from "../shell-sandbox";

void runShellSandbox({
  command: "awk 'BEGIN{for(i=0;i<100000;i++)for(j=0;j<100000;j++)s+=j;print s}'",
  files: [],
  dirs: ["/persistent/user"],
  limits: { timeoutMs: 600_000 },
});
// The spare starts with the call; give both time to load just-bash and the command to start.
setTimeout(() => console.log(`ready ${process.pid}`), 3_000);
// Never outlive a test that failed before killing this process.
setTimeout(() => process.exit(1), 60_000);
