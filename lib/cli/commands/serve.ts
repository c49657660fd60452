import type { Command } from "commander";
import { runConsoleServer } from "@/lib/cli/console-server";
import { parseHostOption, parsePortOption } from "@/lib/cli/options";
import { runCommand } from "@/lib/cli/run-command";

export function registerServe(program: Command): void {
  program
    .command("serve")
    .description("start the console: database (DATABASE_URL or embedded), migrations, production server")
    .option("--port <port>", "port to listen on", parsePortOption, 3000)
    .option("--host <host>", "address to bind", parseHostOption, "0.0.0.0")
    .option("--rebuild", "rebuild the console even if the build looks current")
    .action(
      runCommand((options: { port: number; host: string; rebuild?: boolean }) =>
        runConsoleServer({ port: options.port, host: options.host, demo: false, rebuild: options.rebuild }),
      ),
    );

  program
    .command("demo")
    .description("start the console in demo mode on 127.0.0.1 with demo sign-ins (viewer, operator, admin)")
    .option("--port <port>", "port to listen on", parsePortOption, 3000)
    .option("--rebuild", "rebuild the console even if the build looks current")
    .action(
      runCommand((options: { port: number; rebuild?: boolean }) =>
        runConsoleServer({ port: options.port, host: "127.0.0.1", demo: true, rebuild: options.rebuild }),
      ),
    );
}
