export * from "./values";
export * from "./errors";
export * from "./runtime";
