export { webPlugin } from "./web-plugin.js";
export type { WebPluginOptions } from "./web-context.js";
