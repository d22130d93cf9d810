/**
 * `std/experiments` (spec/workflows.md §5.8), in Harn: descriptors for
 * `llm_call`'s `structural_experiment` option and message-list helpers for
 * custom transforms. The transforms themselves run in the llm layer
 * (agent/llm/experiments.ts).
 */
import type { Runtime } from "@harn/vm";

const EXPERIMENTS = `// std/experiments: bundled with the runtime
pub fn prompt_order_permutation(options) {
  let seed = if options == nil { 0 } else { options.seed ?? 0 }
  return {name: "prompt_order_permutation", label: "prompt_order_permutation(seed: " + to_string(seed) + ")", seed: seed}
}

pub fn doubled_prompt() {
  return {name: "doubled_prompt", label: "doubled_prompt"}
}

pub fn chain_of_draft() {
  return {name: "chain_of_draft", label: "chain_of_draft"}
}

pub fn inverted_system() {
  return {name: "inverted_system", label: "inverted_system"}
}

pub fn custom(label, transform, args = nil) {
  return {name: label, label: label, args: args ?? {}, transform: transform}
}

pub fn message(role, content) {
  return {role: role, content: content}
}

pub fn latest_string_user_message(messages) {
  var i = len(messages) - 1
  while i >= 0 {
    let m = messages[i]
    if m.role == "user" && type_of(m.content) == "string" {
      return {index: i, message: m}
    }
    i = i - 1
  }
  return nil
}

pub fn replace_message(messages, index, message) {
  var out = []
  for e in messages.enumerate() {
    out = out + [if e.index == index { message } else { e.value }]
  }
  return out
}

pub fn prepend_message(messages, message) {
  return [message] + messages
}

pub fn append_message(messages, message) {
  return messages + [message]
}
`;

export function installExperimentsStdModule(rt: Runtime): void {
  rt.stdModules.set("std/experiments", EXPERIMENTS);
}
