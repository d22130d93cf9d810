export type * from "./ast";
