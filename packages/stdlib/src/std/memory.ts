/**
 * `std/memory` (spec/workflows.md §5.3), in Harn: file-backed memory, one
 * directory per namespace under `options.root` (default
 * `<state root>/memory`, the state root being `.harn` at the project root
 * unless HARN_STATE_DIR says otherwise). Every store and forget is an event
 * appended to the namespace's `events.jsonl`; reads replay it, so two
 * processes appending to one namespace both see each other's records.
 */
import type { Runtime } from "@harn/vm";

const MEMORY = String.raw`// std/memory: bundled with the runtime
fn __dir(namespace, options) {
  if type_of(namespace) != "string" || namespace == "" {
    throw "memory: namespace must be a non-empty string"
  }
  for part in namespace.split("/") {
    if part == "" || part == "." || part == ".." || part.contains("\\") || part.contains("\u{0}") {
      throw "memory: invalid namespace '" + namespace + "'"
    }
  }
  let root = options?.root ?? path_join(runtime_paths().state_root, "memory")
  return path_join(root, namespace)
}

fn __events(dir) {
  let file = path_join(dir, "events.jsonl")
  if !file_exists(file) {
    return []
  }
  var out = []
  for line in read_file(file).split("\n") {
    if line.trim() != "" {
      out = out + [json_parse(line)]
    }
  }
  return out
}

fn __append(dir, event) {
  mkdir(dir)
  append_file(path_join(dir, "events.jsonl"), json_stringify(event) + "\n")
}

// Live records in store order: a later store of a key replaces the earlier, a forget removes.
fn __live(dir) {
  var records = []
  for e in __events(dir) {
    if e.type == "store" {
      records = records.filter({ r -> r.key != e.record.key }) + [e.record]
    } else if e.type == "forget" {
      records = records.filter({ r -> !e.ids.contains(r.id) })
    }
  }
  return records
}

fn __tokens(text) {
  var out = []
  for t in regex_split(text.lower(), "[^\\p{L}\\p{N}_]+") {
    if t != "" && !out.contains(t) {
      out = out + [t]
    }
  }
  return out
}

fn __text(value) {
  if type_of(value) == "dict" && type_of(value?.text) == "string" {
    return value.text
  }
  if type_of(value) == "string" {
    return value
  }
  return to_string(value)
}

pub fn memory_store(namespace, key, value, tags = nil, options = nil) {
  let dir = __dir(namespace, options)
  let record = {
    _type: "memory_record",
    id: "mem_" + uuid(),
    namespace: namespace,
    key: key,
    value: value,
    text: __text(value),
    tags: tags ?? [],
    created_at: options?.now ?? date_now_iso(),
  }
  __append(dir, {type: "store", record: record})
  return record
}

pub fn memory_recall(namespace, query, k = 5, options = nil) {
  let wanted = __tokens(to_string(query ?? ""))
  if len(wanted) == 0 {
    return []
  }
  var scored = []
  var order = 0
  for r in __live(__dir(namespace, options)) {
    let have = __tokens(r.text + " " + to_string(r.key) + " " + r.tags.join(" "))
    let overlap = len(wanted.filter({ t -> have.contains(t) }))
    if overlap > 0 {
      scored = scored + [{record: r + {score: to_float(overlap) / to_float(len(wanted))}, order: order}]
    }
    order = order + 1
  }
  // Best first; among equal scores the most recent first.
  let ranked = scored.sort_by({ s -> 0.0 - s.record.score * 1000000.0 - to_float(s.order) })
  return ranked.map({ s -> s.record }).take(k ?? 5)
}

pub fn memory_summarize(namespace, window = nil, options = nil) {
  let limit = window?.limit ?? 20
  let live = __live(__dir(namespace, options))
  let records = if len(live) > limit { live.slice(len(live) - limit, len(live)) } else { live }
  return {
    _type: "memory_summary",
    namespace: namespace,
    count: len(records),
    text: records.map({ r -> "- " + r.key + ": " + r.text }).join("\n"),
    records: records,
  }
}

pub fn memory_forget(namespace, predicate, options = nil) {
  let dir = __dir(namespace, options)
  let tag = predicate?.tag
  let key = predicate?.key
  if tag == nil && key == nil {
    throw "memory_forget: predicate must name a tag or a key"
  }
  let ids = __live(dir).filter({ r -> (tag != nil && r.tags.contains(tag)) || (key != nil && r.key == key) }).map({ r -> r.id })
  let id = "forget_" + uuid()
  __append(dir, {type: "forget", id: id, ids: ids, at: options?.now ?? date_now_iso()})
  return {_type: "memory_forget", id: id, namespace: namespace, forgotten: len(ids), forgotten_ids: ids}
}
`;

export function installMemoryStdModule(rt: Runtime): void {
  rt.stdModules.set("std/memory", MEMORY);
}
