// Runs once when the server starts: refuse to serve with a configuration that is wrong,
// with one line saying what to fix, instead of failing later on the first request.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { exitOnStartupProblem } = await import("@/lib/startup/check-server-startup");
  exitOnStartupProblem();
}
