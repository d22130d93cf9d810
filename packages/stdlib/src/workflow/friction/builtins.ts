/**
 * The friction and context-pack builtins (spec/workflows.md §5.11).
 */
import { builtinModule } from "../../registry/define";
import { FRICTION_EVENTS, frictionEvent, frictionRecord } from "./events";
import { contextPackManifest, evalFixture, parseContextPack, suggestions } from "./packs";

export const FRICTION_BUILTINS = builtinModule("workflow/friction", (def, rt) => {
  def("friction_event", (args) => frictionEvent(rt, args[0] ?? null));
  def("friction_record", (args) => frictionRecord(rt, args[0] ?? null, args[1] ?? null));
  def("friction_events", () => rt.slot(FRICTION_EVENTS).slice());
  def("friction_clear", () => {
    rt.slot(FRICTION_EVENTS).length = 0;
    return null;
  });
  def("context_pack_suggestions", (args) => suggestions(rt, args[0] ?? null, args[1] ?? null));
  def("context_pack_manifest", (args) => contextPackManifest(args[0] ?? null));
  def("context_pack_manifest_parse", (args) => parseContextPack(args[0] ?? null));
  def("friction_eval_fixture", (args) => evalFixture(rt, args[0] ?? null));
});
