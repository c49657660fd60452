import { beforeAll, beforeEach } from "vitest";
import { resetEnvironment } from "@/lib/config/environment";

// The console parses process.env once per process (lib/config/environment.ts). Test files set
// variables after their imports ran (DATABASE_URL, IDEM_CONFIG at the top, others in hooks), so
// each file and each test starts from whatever process.env holds by then, as a fresh process would.
beforeAll(resetEnvironment);
beforeEach(resetEnvironment);
