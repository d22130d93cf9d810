export { HARN_VERSION as VERSION } from "@harn/vm/version";
