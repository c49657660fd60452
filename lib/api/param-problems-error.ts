import { jsonError } from "@/lib/api/json-error";
import type { ParamProblem } from "@/lib/url-state/strict-params";

/** The API's answer to a query it cannot read: every problem in the message, the parameters named. */
export function paramProblemsError(problems: ParamProblem[]): Response {
  return jsonError(400, "bad_request", problems.map((p) => p.message).join("; "), {
    params: problems.map((p) => p.param),
  });
}
