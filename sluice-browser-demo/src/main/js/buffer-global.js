// rsocket-js 1.0 uses Node's global Buffer; in the browser bundle esbuild's --inject replaces every
// free reference to Buffer with this one (the `buffer` package, the browser port of Node's Buffer).
export { Buffer } from "buffer";
