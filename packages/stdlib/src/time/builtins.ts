/** Time, dates and durations (spec/stdlib.md §13). */
import type { Runtime } from "@harn/vm";
import { installClock } from "./clock";
import { installDates } from "./dates";
import { installDurations } from "./durations";

export function installTime(rt: Runtime): void {
  installClock(rt);
  installDates(rt);
  installDurations(rt);
}
