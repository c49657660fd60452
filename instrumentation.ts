// Runs once when the server starts: refuse to serve with a configuration that is wrong,
// with one line saying what to fix, instead of failing later on the first request; then start
// the background metrics roll-up, so metrics reads never count a closed hour themselves.
export async function register() {
  // Left as process.env.NEXT_RUNTIME on purpose: Next replaces it at build time, so the edge bundle drops the import below.
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { exitOnStartupProblem } = await import("@/lib/startup/check-server-startup");
  exitOnStartupProblem();
  const { startServerBackgroundWork } = await import("@/lib/startup/background-work");
  startServerBackgroundWork();
}
