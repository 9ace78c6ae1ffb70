export * from "./provider.js";
export * from "./local-provider.js";
